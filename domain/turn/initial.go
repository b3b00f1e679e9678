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

// Input is one client input, already compiled.
type Input struct {
	// EventID identifies the input (see conversation.UserEventID); it names
	// both messages and makes retries idempotent.
	EventID string
	Trigger Trigger
	// Context is the compiled request context; empty when the client sent
	// none.
	Context string
	// Runtime is the runtime message's content (see [RuntimeParts]); empty
	// when the input adds no user-visible message, as a plain resume.
	Runtime []llm.Part
	// Stored is the request-context message an earlier attempt of the same
	// event stored, if any. It is reused verbatim instead of Context, so a
	// retry keeps a byte-stable prefix even if the context was recompiled.
	Stored *conversation.Message
}

// LatestRequestContext returns the last request-context message of history.
func LatestRequestContext(history []conversation.Message) (conversation.Message, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if _, ok := conversation.RequestContextEvent(history[i].ID()); ok {
			return history[i], true
		}
	}
	return conversation.Message{}, false
}

// InitialMessages returns the messages in adds to history, the current
// checkpoint's list, in order: the request-context message, if any, then the
// runtime message, if any.
//
//   - Only inputs whose trigger starts a turn get a request-context message.
//   - The request context is left out when its text equals the latest
//     request context in history, or when history already holds this
//     event's request context.
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
	ctxID := conversation.RequestContextID(in.EventID)
	if in.Trigger.StartsTurn() && !held(ctxID) {
		ctx, ok, err := contextMessage(ctxID, in)
		if err != nil {
			return nil, err
		}
		latest, found := LatestRequestContext(history)
		if ok && !(found && latest.Text() == ctx.Text()) {
			out = append(out, ctx)
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

// contextMessage returns the input's request-context message: the stored one
// of an earlier attempt, or one built from the compiled context.
func contextMessage(id string, in Input) (conversation.Message, bool, error) {
	if in.Stored != nil {
		if in.Stored.ID() != id {
			return conversation.Message{}, false, fmt.Errorf("reuse request context: stored %q is not %q", in.Stored.ID(), id)
		}
		return *in.Stored, true, nil
	}
	if in.Context == "" {
		return conversation.Message{}, false, nil
	}
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginPrompt, in.Context)
	if err != nil {
		return conversation.Message{}, false, fmt.Errorf("build request context: %w", err)
	}
	return m, true, nil
}
