package agent

import (
	"context"
	"time"

	"keygate/adapters/cursor/output"
	"keygate/adapters/cursor/tools"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// background is the dispatcher's share of background work: calls that
// wait for a background task (Await on a shell), the tasks that finished
// during the turn, and the execs that move a running shell or subagent to
// the background at the user's request (execs of their own, not a tool
// call's). Only the turn's goroutine touches it, except the timers, which
// hand their call over through expired.
type background struct {
	// waiting are the calls waiting for a task, by task id, with the timer
	// that ends each wait.
	waiting map[string][]*tools.Call
	timers  map[*tools.Call]*time.Timer
	// finished are the tasks the client reported done during the turn.
	finished map[string]*agentv1.BackgroundTaskCompletion
	// side maps the exec id of a move to the background to the tool call
	// it moves.
	side    map[uint32]string
	expired chan *tools.Call
}

func newBackground() *background {
	return &background{waiting: map[string][]*tools.Call{}, timers: map[*tools.Call]*time.Timer{},
		finished: map[string]*agentv1.BackgroundTaskCompletion{}, side: map[uint32]string{}, expired: make(chan *tools.Call, 8)}
}

// await makes call wait for its task: done at once when the task finished
// earlier in the turn, else until the task's completion or the deadline.
func (d *dispatcher) await(ctx context.Context, call *tools.Call, w *tools.Await) {
	if done, ok := d.bg.finished[w.TaskID]; ok {
		d.apply(ctx, call, call.OnTask(done))
		return
	}
	d.bg.waiting[w.TaskID] = append(d.bg.waiting[w.TaskID], call)
	d.bg.timers[call] = time.AfterFunc(w.For, func() {
		select {
		case d.bg.expired <- call:
		case <-d.over:
		}
	})
}

// awaitExpired ends a wait whose time is up: the task still runs.
func (d *dispatcher) awaitExpired(ctx context.Context, call *tools.Call) {
	if _, ok := d.bg.timers[call]; ok {
		d.apply(ctx, call, call.OnTask(nil))
	}
}

// taskDone records a task the client reported done and completes the calls
// waiting for it.
func (d *dispatcher) taskDone(ctx context.Context, c *agentv1.BackgroundTaskCompletion) {
	id := c.GetTaskId()
	d.bg.finished[id] = c
	for _, call := range d.bg.waiting[id] {
		d.apply(ctx, call, call.OnTask(c))
	}
}

// forget stops call's wait, if any.
func (b *background) forget(call *tools.Call) {
	t, ok := b.timers[call]
	if !ok {
		return
	}
	t.Stop()
	delete(b.timers, call)
	for id, calls := range b.waiting {
		for i, c := range calls {
			if c == call {
				b.waiting[id] = append(calls[:i:i], calls[i+1:]...)
			}
		}
		if len(b.waiting[id]) == 0 {
			delete(b.waiting, id)
		}
	}
}

// waitingCalls returns the calls waiting for a task.
func (b *background) waitingCalls() []*tools.Call {
	out := make([]*tools.Call, 0, len(b.timers))
	for call := range b.timers {
		out = append(out, call)
	}
	return out
}

// toBackground asks the client to move the running shell (or subagent)
// of a tool call to the background, as the user asked. The call then
// completes as the client reports it (the shell's stream says it is
// backgrounded, the subagent's result that it goes on in the background).
// A call that is no longer running has nothing to move.
func (d *dispatcher) toBackground(toolCallID string, subagent bool) {
	running := false
	for _, c := range d.execs {
		if c.ID() == toolCallID {
			running = true
		}
	}
	if !running {
		return
	}
	id, err := d.wire.execID()
	if err != nil {
		return
	}
	d.bg.side[id] = toolCallID
	m := &agentv1.ExecServerMessage{ExecId: toolCallID + ":background", Message: &agentv1.ExecServerMessage_ForceBackgroundShellArgs{
		ForceBackgroundShellArgs: &agentv1.ForceBackgroundShellArgs{ToolCallId: toolCallID}}}
	if subagent {
		m.Message = &agentv1.ExecServerMessage_ForceBackgroundSubagentArgs{
			ForceBackgroundSubagentArgs: &agentv1.ForceBackgroundSubagentArgs{ToolCallId: toolCallID}}
	}
	d.wire.emit(output.Exec(id, m))
}

// sideResult consumes the client's answer to a move to the background. A
// shell the client moved and answered for in one message completes its
// call with that result.
func (d *dispatcher) sideResult(ctx context.Context, m *agentv1.ExecClientMessage) bool {
	toolCallID, ok := d.bg.side[m.GetId()]
	if !ok {
		return false
	}
	delete(d.bg.side, m.GetId())
	r := m.GetForceBackgroundShellResult()
	if r.GetStatus() != agentv1.ForceBackgroundShellStatus_FORCE_BACKGROUND_SHELL_STATUS_ACCEPTED || r.GetShellResult() == nil {
		return true
	}
	for _, call := range d.execs {
		if call.ID() == toolCallID {
			d.apply(ctx, call, call.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellResult{ShellResult: r.GetShellResult()}}))
		}
	}
	return true
}
