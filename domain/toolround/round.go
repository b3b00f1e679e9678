package toolround

import (
	"fmt"
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// InterruptedResult is the content of the synthetic error result a pending
// call gets when a newer user message interrupts its round.
const InterruptedResult = "Tool execution was interrupted by a newer user message."

// Round is one tool round. It is an immutable value: Commit and Interrupt
// return the next state. The zero value is not a valid round.
type Round struct {
	// plan is the round's assistant message: id = round id, every call in
	// the model's original order, plus text, thinking and replay state.
	plan conversation.Message
	// completed lists call ids in completion order.
	completed []string
}

// New starts round id (see conversation.ToolRoundID) for the assistant turn
// a, which must hold at least one call. Calls keep the order the model gave
// them. Calls with an ArgumentError are part of the round; the engine
// completes them with [ArgumentErrorResult] instead of dispatching them.
func New(id string, a llm.Assistant) (Round, error) {
	if len(a.Calls) == 0 {
		return Round{}, fmt.Errorf("start tool round %q: %w: no calls", id, ErrInvalidRound)
	}
	plan, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, Assistant: &a,
	})
	if err != nil {
		return Round{}, fmt.Errorf("start tool round %q: %w: %w", id, ErrInvalidRound, err)
	}
	return Round{plan: plan}, nil
}

// Rehydrate rebuilds a stored round from its plan message and the call ids
// completed so far, in completion order. It is the only way back from
// storage and applies the same checks as New and Commit.
func Rehydrate(plan conversation.Message, completed []string) (Round, error) {
	a, ok := plan.Assistant()
	if !ok {
		return Round{}, fmt.Errorf("rehydrate tool round %q: %w: plan is not an assistant message", plan.ID(), ErrInvalidRound)
	}
	r, err := New(plan.ID(), a)
	if err != nil {
		return Round{}, err
	}
	for _, id := range completed {
		if _, ok := r.call(id); !ok {
			return Round{}, &UnknownCallError{RoundID: r.ID(), CallID: id}
		}
		if slices.Contains(r.completed, id) {
			return Round{}, fmt.Errorf("rehydrate tool round %q: %w: %q completed twice", r.ID(), ErrInvalidRound, id)
		}
		r.completed = append(r.completed, id)
	}
	return r, nil
}

// ID returns the round id.
func (r Round) ID() string { return r.plan.ID() }

// Plan returns the round's assistant message (all calls, original order).
// A store persists it; it is not part of any checkpoint.
func (r Round) Plan() conversation.Message { return r.plan }

// Calls returns every call in the model's original order.
func (r Round) Calls() []llm.ToolCall {
	a, _ := r.plan.Assistant()
	return a.Calls
}

// Pending returns the calls without a result, in original order.
func (r Round) Pending() []llm.ToolCall {
	var out []llm.ToolCall
	for _, c := range r.Calls() {
		if !slices.Contains(r.completed, c.CallID) {
			out = append(out, c)
		}
	}
	return out
}

// Completed returns the ids of completed calls in completion order.
func (r Round) Completed() []string { return slices.Clone(r.completed) }

// Version counts committed results; it grows by one per commit.
func (r Round) Version() int { return len(r.completed) }

// Settled reports whether every call has its result.
func (r Round) Settled() bool { return len(r.completed) == len(r.Calls()) }

func (r Round) call(callID string) (llm.ToolCall, bool) {
	for _, c := range r.Calls() {
		if c.CallID == callID {
			return c, true
		}
	}
	return llm.ToolCall{}, false
}
