package run

import (
	"context"
	"slices"
	"sync"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

// Delivery says what happened to a command sent to a run.
type Delivery uint8

// Deliveries.
const (
	// Applied: the run took the command; its effect shows in later events.
	Applied Delivery = iota + 1
	// RunClosing: the run is committing its final turn and takes no more
	// messages; the transport starts a new run for them.
	RunClosing
	// RunEnded: the run has ended.
	RunEnded
)

// String returns the delivery name.
func (d Delivery) String() string {
	switch d {
	case Applied:
		return "applied"
	case RunClosing:
		return "run_closing"
	case RunEnded:
		return "run_ended"
	default:
		return "unknown"
	}
}

type phase uint8

const (
	phaseRunning phase = iota
	phaseFinalizing
	phaseEnded
)

type commandKind uint8

const (
	cmdToolResult commandKind = iota + 1
	cmdInsert
	cmdBreak
)

type command struct {
	kind     commandKind
	result   llm.ToolResult
	messages []conversation.Message
	detached []llm.ToolResult
}

// Handle is the transport's side of one run: events out, commands in.
// Commands never block: they queue in the run's inbox and the engine
// applies them at the points docs/engine.md, "Commands while a run works"
// names.
type Handle struct {
	runID  string
	events chan Event
	done   chan struct{}
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	phase   phase
	inbox   []command
	notify  chan struct{}
	outcome Outcome
	// prompt, when set, replaces the prepared prompt from the next model
	// call on.
	prompt *projection.Prompt
}

func newHandle(runID string, buffer int, cancel context.CancelCauseFunc) *Handle {
	return &Handle{runID: runID, events: make(chan Event, buffer), done: make(chan struct{}),
		cancel: cancel, notify: make(chan struct{}, 1)}
}

// RunID returns the run's id.
func (h *Handle) RunID() string { return h.runID }

// Events returns the run's events. The channel closes after [Ended]. The
// transport must drain it (or cancel the context given to Start): the
// engine waits for buffer space but never deadlocks on a cancelled run.
func (h *Handle) Events() <-chan Event { return h.events }

// Done is closed when the run has ended and its outcome is stored.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Outcome returns the run's outcome; valid once Done is closed.
func (h *Handle) Outcome() Outcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.outcome
}

// Wait blocks until the run ended or ctx is done.
func (h *Handle) Wait(ctx context.Context) (Outcome, error) {
	select {
	case <-h.done:
		return h.Outcome(), nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// ToolResult delivers the result of a call of the current tool round.
// Results are committed in the order they arrive; a duplicate is ignored.
func (h *Handle) ToolResult(result llm.ToolResult) Delivery {
	return h.send(command{kind: cmdToolResult, result: result})
}

// InsertMessages queues messages (each with a stable id) to be appended at
// the next boundary: after the current model cycle's answer, after the
// current tool round settles, or after a compaction. They do not interrupt.
func (h *Handle) InsertMessages(msgs ...conversation.Message) Delivery {
	return h.send(command{kind: cmdInsert, messages: slices.Clone(msgs)})
}

// BreakMessages interrupts the run for a newer user message: a running
// model cycle is stopped, pending tool calls complete with their detached
// result (matched by call id) or an interruption error, queued insertions
// and then msgs are appended, and the model runs again.
func (h *Handle) BreakMessages(msgs []conversation.Message, detached ...llm.ToolResult) Delivery {
	return h.send(command{kind: cmdBreak, messages: slices.Clone(msgs), detached: slices.Clone(detached)})
}

// SwitchPrompt replaces the run's instructions and tools from its next
// model call on (a mode switch the user approved changes the tools for
// the rest of the run). A call already running keeps the prompt it was
// sent with; a summary call keeps the compaction prompt.
func (h *Handle) SwitchPrompt(p projection.Prompt) Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.phase == phaseEnded {
		return RunEnded
	}
	h.prompt = &p
	return Applied
}

func (h *Handle) switchedPrompt() (projection.Prompt, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.prompt == nil {
		return projection.Prompt{}, false
	}
	return *h.prompt, true
}

// Cancel stops the run: the current provider call, retry wait, tool round
// or barrier is abandoned and the run ends Cancelled with reason.
func (h *Handle) Cancel(reason string) {
	h.cancel(&errCancelled{reason: reason})
}

func (h *Handle) send(c command) Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.phase {
	case phaseEnded:
		return RunEnded
	case phaseFinalizing:
		return RunClosing
	}
	h.inbox = append(h.inbox, c)
	select {
	case h.notify <- struct{}{}:
	default:
	}
	return Applied
}

// take removes and returns every queued command.
func (h *Handle) take() []command {
	h.mu.Lock()
	defer h.mu.Unlock()
	cmds := h.inbox
	h.inbox = nil
	return cmds
}

// finalize moves the run to Finalizing unless messages are queued, which
// it returns instead (the run then goes on). Queued tool results are stale
// at this point and dropped.
func (h *Handle) finalize() []command {
	h.mu.Lock()
	defer h.mu.Unlock()
	var msgs []command
	for _, c := range h.inbox {
		if c.kind != cmdToolResult {
			msgs = append(msgs, c)
		}
	}
	h.inbox = nil
	if len(msgs) == 0 {
		h.phase = phaseFinalizing
	}
	return msgs
}

func (h *Handle) end(o Outcome) {
	h.mu.Lock()
	h.phase, h.outcome, h.inbox = phaseEnded, o, nil
	h.mu.Unlock()
}
