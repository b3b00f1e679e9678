package cursortest

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// This file is the chat a client shows when it reloads a conversation: not
// the stream it saw live, but the turns of the checkpoint it holds, read
// from its blob store.

// ChatTurn is one turn of a reloaded chat: the user's message (nil for a
// turn without one) and the steps shown under it (assistant text,
// thinking, tool cards), in order.
type ChatTurn struct {
	User  *agentv1.UserMessage
	Steps []*agentv1.ConversationStep
}

// Chat reads the agent turns of cp from the client's blob store, as a
// reloaded chat renders them. A blob the store lacks is an error (the chat
// would fail to load); a shell turn shows as a turn without steps.
func (c *Client) Chat(cp *agentv1.ConversationStateStructure) ([]ChatTurn, error) {
	var out []ChatTurn
	for _, id := range cp.GetTurns() {
		var ts agentv1.ConversationTurnStructure
		if err := c.decodeBlob(id, &ts); err != nil {
			return nil, fmt.Errorf("turn: %w", err)
		}
		at := ts.GetAgentConversationTurn()
		var t ChatTurn
		if len(at.GetUserMessage()) > 0 {
			t.User = &agentv1.UserMessage{}
			if err := c.decodeBlob(at.GetUserMessage(), t.User); err != nil {
				return nil, fmt.Errorf("user message: %w", err)
			}
		}
		for _, sid := range at.GetSteps() {
			step := &agentv1.ConversationStep{}
			if err := c.decodeBlob(sid, step); err != nil {
				return nil, fmt.Errorf("step: %w", err)
			}
			t.Steps = append(t.Steps, step)
		}
		out = append(out, t)
	}
	return out, nil
}

func (c *Client) decodeBlob(id []byte, m proto.Message) error {
	data, ok := c.Blob(id)
	if !ok {
		return errors.New("blob not in the client's store")
	}
	return proto.Unmarshal(data, m)
}

// Cards lists the tool call ids of a turn's tool-call steps, in order (an
// id shows as often as the chat shows a card for it).
func (t ChatTurn) Cards() []string {
	var ids []string
	for _, s := range t.Steps {
		if tc := s.GetToolCall(); tc != nil {
			ids = append(ids, tc.GetToolCallId())
		}
	}
	return ids
}

// Texts lists the turn's assistant text steps.
func (t ChatTurn) Texts() []string {
	var out []string
	for _, s := range t.Steps {
		if a := s.GetAssistantMessage(); a != nil {
			out = append(out, a.GetText())
		}
	}
	return out
}

// Done reports whether a tool card shows as completed: its typed call
// (the tool oneof) carries a result.
func Done(tc *agentv1.ToolCall) bool {
	m := tc.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("tool")
	fd := m.WhichOneof(od)
	if fd == nil || fd.Kind() != protoreflect.MessageKind {
		return false
	}
	typed := m.Get(fd).Message()
	res := typed.Descriptor().Fields().ByName("result")
	return res != nil && typed.Has(res)
}
