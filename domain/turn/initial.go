package turn

import (
	"errors"
	"fmt"
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// ErrNoEvent marks an input without an event id: without one its messages
// would have no stable identity.
var ErrNoEvent = errors.New("input has no event id")

// Context is one channel of an input's compiled request context.
type Context struct {
	Channel conversation.ContextChannel
	Text    string
	// Clears says that the client reported the channel empty and Text says
	// so: it is appended only over an earlier message of the channel that
	// said something else, never to a conversation that had none.
	Clears bool
}

// Input is one client input, already compiled.
type Input struct {
	// EventID identifies the input (see conversation.UserEventID); it names
	// every message it adds and makes retries idempotent.
	EventID string
	Trigger Trigger
	// Contexts are the compiled request context by channel; a channel the
	// client said nothing about is left out.
	Contexts []Context
	// Runtime is the runtime message's content (see [RuntimeParts]); empty
	// when the input adds no user-visible message, as a plain resume.
	Runtime []llm.Part
	// Stored are request-context messages an earlier attempt of the same
	// event stored. Each is reused verbatim instead of its channel's
	// context, so a retry keeps a byte-stable prefix even if the context was
	// recompiled.
	Stored []conversation.Message
}

// LatestRequestContext returns the last request-context message of history
// of any channel.
func LatestRequestContext(history []conversation.Message) (conversation.Message, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if _, ok := conversation.RequestContextEvent(history[i].ID()); ok {
			return history[i], true
		}
	}
	return conversation.Message{}, false
}

// LatestContext returns the last request-context message of channel ch in
// history.
func LatestContext(history []conversation.Message, ch conversation.ContextChannel) (conversation.Message, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if got, _, ok := conversation.ContextOf(history[i].ID()); ok && got == ch {
			return history[i], true
		}
	}
	return conversation.Message{}, false
}

// InitialMessages returns the messages in adds to history, the current
// checkpoint's list, in order: one request-context message per channel
// that needs one (in the order of conversation.ContextChannels), then the
// runtime message, if any.
//
//   - Only inputs whose trigger starts a turn get request-context messages.
//   - A channel's message is left out when its text equals the latest
//     message of the channel in history, or when history already holds
//     this event's message of the channel. A channel the input clears is
//     appended only over a latest message that said something else.
//   - Messages history already holds (a retry applied on top of itself) are
//     not returned again.
func InitialMessages(history []conversation.Message, in Input) ([]conversation.Message, error) {
	if in.EventID == "" {
		return nil, ErrNoEvent
	}
	held := func(id string) bool {
		return slices.ContainsFunc(history, func(m conversation.Message) bool { return m.ID() == id })
	}
	var out []conversation.Message
	if in.Trigger.StartsTurn() {
		for _, ch := range conversation.ContextChannels {
			id := conversation.ContextID(ch, in.EventID)
			if held(id) {
				continue
			}
			c, given := contextOf(in.Contexts, ch)
			m, ok, err := contextMessage(id, c, in.Stored)
			if err != nil {
				return nil, err
			}
			latest, found := LatestContext(history, ch)
			switch {
			case !ok || (found && latest.Text() == m.Text()):
			case given && c.Clears && !found:
			default:
				out = append(out, m)
			}
		}
	}
	if runtimeID := conversation.RuntimeID(in.EventID); len(in.Runtime) > 0 && !held(runtimeID) {
		m, err := conversation.NewMessage(conversation.MessageSpec{
			ID: runtimeID, Role: llm.RoleUser, Origin: conversation.OriginRuntime,
			RuntimeEventID: in.EventID, Parts: in.Runtime,
		})
		if err != nil {
			return nil, fmt.Errorf("build runtime message: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}

func contextOf(cs []Context, ch conversation.ContextChannel) (Context, bool) {
	for _, c := range cs {
		if c.Channel == ch {
			return c, true
		}
	}
	return Context{}, false
}

// contextMessage returns the input's request-context message id: the one
// an earlier attempt stored, or one built from the compiled context c.
func contextMessage(id string, c Context, stored []conversation.Message) (conversation.Message, bool, error) {
	for _, m := range stored {
		if m.ID() == id {
			return m, true, nil
		}
	}
	if c.Text == "" {
		return conversation.Message{}, false, nil
	}
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginPrompt, c.Text)
	if err != nil {
		return conversation.Message{}, false, fmt.Errorf("build request context: %w", err)
	}
	return m, true, nil
}
