package toolround

import (
	"fmt"
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// Commit is what committing one result produced.
type Commit struct {
	// Messages are the call's assistant part and its result, to be appended
	// together in one write; empty when the result was a duplicate.
	Messages []conversation.Message
	// Duplicate reports a result for an already completed call; it is
	// ignored and the round is unchanged.
	Duplicate bool
	// Settled reports that no call is pending any more.
	Settled bool
}

// Commit records the result of one call. Results arrive in completion order.
// The call's assistant part carries only that call; the first completed
// call's part also carries the round's text, thinking and replay state, so
// they appear exactly once in history. A result for a call the round does not
// hold is an *UnknownCallError; a second result for a completed call is
// ignored. The result's name defaults to the call's name.
func (r Round) Commit(res llm.ToolResult) (Round, Commit, error) {
	call, ok := r.call(res.CallID)
	if !ok {
		return r, Commit{}, &UnknownCallError{RoundID: r.ID(), CallID: res.CallID}
	}
	if slices.Contains(r.completed, call.CallID) {
		return r, Commit{Duplicate: true, Settled: r.Settled()}, nil
	}
	whole, _ := r.plan.Assistant()
	part := llm.Assistant{Calls: []llm.ToolCall{call}}
	if len(r.completed) == 0 {
		part.Text, part.Thinking, part.Replay = whole.Text, whole.Thinking, whole.Replay
	}
	if res.Name == "" {
		res.Name = call.Name
	}
	partMsg, err := conversation.NewMessage(conversation.MessageSpec{
		ID: conversation.ToolCallPartID(r.ID(), call.CallID), Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, ToolRoundID: r.ID(), Assistant: &part,
	})
	if err != nil {
		return r, Commit{}, fmt.Errorf("commit tool result %q: %w", call.CallID, err)
	}
	resultMsg, err := conversation.NewMessage(conversation.MessageSpec{
		ID: conversation.ToolResultID(r.ID(), call.CallID), Role: llm.RoleTool,
		Origin: conversation.OriginTool, ToolRoundID: r.ID(), ToolResult: &res,
	})
	if err != nil {
		return r, Commit{}, fmt.Errorf("commit tool result %q: %w", call.CallID, err)
	}
	next := Round{plan: r.plan, completed: append(slices.Clone(r.completed), call.CallID)}
	return next, Commit{Messages: []conversation.Message{partMsg, resultMsg}, Settled: next.Settled()}, nil
}

// Interrupt completes every pending call, in original order: with its
// detached result when the transport supplied one (matched by call id),
// otherwise with a synthetic error result saying a newer user message
// interrupted it. It returns the settled round and the messages to append.
func (r Round) Interrupt(detached ...llm.ToolResult) (Round, []conversation.Message, error) {
	var msgs []conversation.Message
	for _, call := range r.Pending() {
		res := llm.ToolResult{CallID: call.CallID, Content: InterruptedResult, IsError: true}
		for _, d := range detached {
			if d.CallID == call.CallID {
				res = d
			}
		}
		next, c, err := r.Commit(res)
		if err != nil {
			return r, nil, err
		}
		r = next
		msgs = append(msgs, c.Messages...)
	}
	return r, msgs, nil
}

// Dispatchable returns the pending calls that go to the client: those whose
// arguments parsed. The others complete with [ArgumentErrorResult].
func (r Round) Dispatchable() []llm.ToolCall {
	var out []llm.ToolCall
	for _, c := range r.Pending() {
		if c.ArgumentError == "" {
			out = append(out, c)
		}
	}
	return out
}

// ArgumentErrorResult is the tool error a call with malformed arguments
// completes with, so the model sees why and can retry the call.
func ArgumentErrorResult(call llm.ToolCall) llm.ToolResult {
	return llm.ToolResult{CallID: call.CallID, Name: call.Name, Content: call.ArgumentError, IsError: true}
}
