package agent

// This file is what keeps a resume from sampling the model again when the
// server's store lost the conversation (a wiped or restored database, a
// replica without it): every checkpoint of an open tool round names the
// calls still waiting for results (pending_tool_calls) next to the history
// so far (the roots), and a resume rebuilds the round from them.
//
// Where the store can be lost, and what the client's checkpoint then holds:
//
//	before any result    roots up to the round, pending: every call (and the
//	                     round's text, reasoning and replay state)
//	mid-round            roots with the results committed so far, pending:
//	                     the calls still open (published after each result)
//	after the round      roots with every result, nothing pending: the next
//	                     model cycle is the first thing left to do
//	after the answer     the staged final state: pending is the answer
//
// On resume the roots the store lacks are imported (importRoots), the open
// calls go to the engine as run.Action.PendingCalls, which runs them before
// any model call when the store does not know their round, and a pending
// final answer is imported as the answer, so the run ends without a model
// call.

import (
	"context"

	"bytes"
	"crypto/sha256"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// opened records the round just dispatched as the open round.
func (c *checkpoints) opened(p checkpoint.Pending) {
	p.Calls = append([]llm.ToolCall(nil), p.Calls...)
	c.open = &p
}

// answered takes the calls a tool-result commit answered off the open
// round and reports whether calls remain open. Once a call is answered the
// round's text, reasoning and replay state are history (they travel with
// its first call), so the open round no longer carries them.
func (c *checkpoints) answered(cause run.Cause) bool {
	if c.open == nil {
		return false
	}
	if cause.Interrupted {
		c.open = nil
		return false
	}
	var left []llm.ToolCall
	for _, call := range c.open.Calls {
		if call.CallID != cause.CallID {
			left = append(left, call)
		}
	}
	if len(left) == len(c.open.Calls) {
		return false // not a call of the open round
	}
	c.open.Calls, c.open.Text, c.open.Thinking, c.open.Replay = left, "", "", nil
	if len(left) == 0 {
		c.open = nil
		return false
	}
	return true
}

// publishStaged publishes the staged checkpoint of checkpointID with the
// open round pending.
func (s *session) publishStaged(ctx context.Context, checkpointID string) {
	if s.view.open == nil {
		return
	}
	p, err := s.view.project(ctx, checkpointID, "")
	if err != nil {
		s.log.Warn("staged checkpoint not built", zap.Error(err))
		return
	}
	st, blobs := checkpoint.Staged(p, *s.view.open)
	s.blobs.publish(ctx, blobs, st)
}

// resumePending reads the open round of the client's checkpoint for a
// resume: its Keygate round id and, when it still has calls, the turn the
// engine runs if its store does not know the round.
func resumePending(base *agentv1.ConversationStateStructure) (string, *llm.Assistant, error) {
	roundID, turn, ok, err := checkpoint.PendingTurn(base)
	if err != nil || !ok || len(turn.Calls) == 0 {
		return roundID, nil, err
	}
	return roundID, &turn, nil
}

// extendsStore reports whether the client's roots start with the messages
// the store holds (each root is the SHA-256 of a message's encoding), so
// the roots past them are history the store lost.
func extendsStore(roots [][]byte, have []conversation.Message) bool {
	if len(roots) < len(have) {
		return false
	}
	for i, m := range have {
		sum := sha256.Sum256(m.Encode())
		if !bytes.Equal(sum[:], roots[i]) {
			return false
		}
	}
	return true
}

// pendingAnswer is the final answer of a staged final checkpoint (a
// pending entry without calls), as the assistant message it was, or false.
func pendingAnswer(base *agentv1.ConversationStateStructure) (conversation.Message, bool) {
	id, turn, ok, err := checkpoint.PendingTurn(base)
	if err != nil || !ok || id == "" || len(turn.Calls) > 0 || turn.Text == "" {
		return conversation.Message{}, false
	}
	m, err := conversation.NewMessage(conversation.MessageSpec{ID: id, Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, Assistant: &turn})
	if err != nil {
		return conversation.Message{}, false
	}
	return m, true
}
