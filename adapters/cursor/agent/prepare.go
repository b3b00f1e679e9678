package agent

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"connectrpc.com/connect"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/access"
	"keygate/domain/conversation"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// prepare compiles the turn and starts its run.
func (s *session) prepare() error {
	req := s.turn.Request
	s.action = req.GetAction()
	s.base = req.GetConversationState()
	s.convID = req.GetConversationId()
	if s.convID == "" {
		return connect.NewError(connect.CodeInvalidArgument, errors.New("run request has no conversation id"))
	}
	next := s.turn.FollowUp
	if s.late != nil {
		next = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{
			UserMessageAction: &agentv1.UserMessageAction{UserMessage: s.late.user}}}
	}
	if next != nil {
		s.action = next
		if l := s.h.latest(s.convID); l != nil {
			s.base = l
		}
	}
	ep, cfg := s.endpoint, s.config
	s.todos, s.todosSet = checkpoint.Todos(s.base), false
	blobs, err := s.partBlobs(req)
	if err != nil {
		return err
	}
	// Opening the conversation is also the tenancy check (the store
	// refuses another user's conversation), so nothing of the client's
	// checkpoint is trusted before it.
	head, history, err := s.history(req)
	if err != nil {
		return err
	}
	// Whatever the client's checkpoint refers to, the client holds.
	for _, id := range append(append([][]byte{}, s.base.GetRootPromptMessagesJson()...), s.base.GetTurns()...) {
		s.h.confirm(s.convID, string(id))
	}
	images, err := s.images(req)
	if err != nil {
		return err
	}
	in := compile.Input{Images: images,
		RequestID: s.turn.RequestID, RunID: conversation.RunID(s.turn.RequestID, nonce()), Request: req,
		Action: s.action, ConversationID: s.convID, History: history, ConversationMode: s.base.GetMode(),
		Model: compile.Model(ep, cfg, req.GetRequestedModel()), ModelName: cfg.DisplayName, Blobs: blobs,
		Now: s.h.o.Now(), Web: s.h.o.Web != nil,
	}
	if um := s.action.GetUserMessageAction().GetUserMessage(); um != nil && um.GetMessageId() != "" {
		base, msgs, ok, err := s.editBase(head, history, um.GetMessageId())
		if err != nil {
			return err
		}
		if ok {
			in.BaseCheckpointID, in.History = base, msgs
		}
	}
	if s.action.GetResumeAction() != nil {
		if in.PendingRoundID, err = checkpoint.PendingRoundID(s.base); err != nil {
			return connect.NewError(connect.CodeInvalidArgument, err)
		}
	}
	s.cur, s.curMsgs, s.curKnown = head.ID(), in.History, true
	if in.BaseCheckpointID != "" {
		s.cur = in.BaseCheckpointID
	}
	s.compiled, err = compile.Compile(in)
	if err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	// The engine builds on the history read here rather than loading it
	// again, unless the head moved meanwhile.
	s.compiled.Run.History, s.compiled.Run.HistoryOf = s.curMsgs, s.cur
	if s.compiled.Run.ParentRunID, s.compiled.Run.ParentToolCallID, err = s.parent(); err != nil {
		return err
	}
	s.compacting = s.compiled.Run.Action.Kind == run.ActionCompact
	s.maxTok = in.Model.ContextWindow
	s.ui = &checkpoint.Turn{RequestID: s.turn.RequestID, User: s.compiled.UserMessage}
	if s.action.GetResumeAction() != nil {
		s.continueTurn(req)
	}
	s.predict(head)
	s.handle, err = s.h.o.Engine.Start(s.ctx, s.compiled.Run)
	if err != nil {
		return fmt.Errorf("start run: %w", err)
	}
	return nil
}

// history returns the conversation's head and messages, importing them
// from the client's checkpoint when the store has none.
func (s *session) history(req *agentv1.AgentRunRequest) (conversation.Checkpoint, []conversation.Message, error) {
	head, err := s.h.o.Conversations.Open(s.ctx, s.convID)
	if errors.Is(err, access.ErrDenied) {
		// Another user's conversation looks like no conversation at all.
		return head, nil, connect.NewError(connect.CodeNotFound, errConversationNotFound)
	}
	if err != nil {
		return head, nil, fmt.Errorf("open conversation: %w", err)
	}
	var msgs []conversation.Message
	if head.Len() > 0 { // a new conversation's root holds nothing to load
		if _, msgs, err = s.h.o.Conversations.Load(s.ctx, head.ID()); err != nil {
			return head, nil, fmt.Errorf("load conversation: %w", err)
		}
	}
	if len(msgs) == 0 && len(s.base.GetRootPromptMessagesJson()) > 0 {
		return s.importRoots(head, req)
	}
	return head, msgs, nil
}

// parent names a subagent's parent run and tool call (empty for a root
// run): the parent request's latest run when Options.Runs can tell,
// otherwise the parent request id. A parent run in a conversation the
// caller may not open is refused like an unknown one would be, so that no
// run records another user's run as its parent.
func (s *session) parent() (runID, toolCallID string, err error) {
	p := s.turn.Parent
	if p.RequestID == "" {
		return "", "", nil
	}
	if s.h.o.Runs != nil {
		if r, err := s.h.o.Runs.LatestForRequest(s.ctx, p.RequestID); err == nil {
			if _, err := s.h.o.Conversations.Head(s.ctx, r.ConversationID); errors.Is(err, access.ErrDenied) {
				return "", "", connect.NewError(connect.CodeNotFound, errParentNotFound)
			}
			return r.RunID, p.ToolCallID, nil
		}
	}
	return p.RequestID, p.ToolCallID, nil
}

var (
	errConversationNotFound = errors.New("conversation not found")
	errParentNotFound       = errors.New("parent run not found")
)

// resolve finds the turn's model among Keygate's models.
func (s *session) resolve() error {
	modelID := transport.ModelID(s.turn.Request)
	ep, cfg, err := s.h.o.Models.Endpoint(s.ctx, modelID)
	switch {
	case errors.Is(err, ports.ErrNotFound) || (err == nil && !cfg.Enabled):
		return &foreignModelError{model: modelID}
	case err != nil:
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("resolve model %q: %w", modelID, err))
	}
	s.endpoint, s.config = ep, cfg
	return nil
}

// editBase finds the checkpoint an edited or re-sent user message branches
// from: the last checkpoint before the first message of that input's
// event. ok is false when history does not hold the input (a new message)
// or holds it as its last turn without anything after (a retry).
func (s *session) editBase(head conversation.Checkpoint, history []conversation.Message, messageID string) (string, []conversation.Message, bool, error) {
	prefix := "cursor:user:" + messageID + ":"
	idx := -1
	for i, m := range history {
		ev, isCtx := conversation.RequestContextEvent(m.ID())
		if !isCtx {
			ev = m.RuntimeEventID()
		}
		if strings.HasPrefix(ev, prefix) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return "", nil, false, nil
	}
	cp := head
	for cp.Len() > idx {
		if cp.ParentID() == "" {
			return "", nil, false, nil
		}
		var err error
		if cp, _, err = s.h.o.Conversations.Load(s.ctx, cp.ParentID()); err != nil {
			return "", nil, false, fmt.Errorf("find edit base: %w", err)
		}
	}
	_, msgs, err := s.h.o.Conversations.Load(s.ctx, cp.ID())
	if err != nil {
		return "", nil, false, fmt.Errorf("load edit base: %w", err)
	}
	return cp.ID(), msgs, true, nil
}

func nonce() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return binary.BigEndian.Uint32(b[:])
}
