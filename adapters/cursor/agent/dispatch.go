package agent

import (
	"context"
	"errors"

	"keygate/adapters/cursor/output"
	"keygate/adapters/cursor/tools"
	"keygate/app/run"
	"keygate/domain/identity"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// dispatcher runs the tool calls of the turn's rounds. It shows a call's
// card while the model streams it, starts each call (package tools), sends
// its execs, queries and live output, routes the client's answers to their
// call by wire id, runs approved web requests off the turn's goroutine
// (their outcomes arrive on webDone) and hands each result to the run
// through deliver. A call's tool_call_completed goes out only once the run
// committed its result (completed), so the client never shows a result the
// store lacks. Only the turn's goroutine uses it, except the web requests.
type dispatcher struct {
	over   <-chan struct{}
	wire   *wire
	search ports.WebSearcher
	fetch  ports.WebFetcher
	// slots bound the web requests in flight of the turn's user.
	slots *webSlots
	// record notes a call's card in the turn's steps.
	record func(*agentv1.ToolCall)
	// deliver hands a finished call's result to the run.
	deliver func(context.Context, *tools.Call, llm.ToolResult)

	// execs and queries map wire ids to their calls.
	execs   map[uint32]*tools.Call
	queries map[uint32]*tools.Call
	// completing holds calls whose result the run has and not committed.
	completing map[string]*tools.Call
	// modelCall is the provider's id of each call, for the cards.
	modelCall map[string]string
	// edits follow the content of Write and StrReplace calls the model
	// is streaming.
	edits   map[string]*argStream
	webDone chan webOutcome
	// bg is the turn's background work: awaits and moves to the background.
	bg *background
}

type webOutcome struct {
	call *tools.Call
	tools.WebOutcome
}

func newDispatcher(over <-chan struct{}, w *wire, search ports.WebSearcher, fetch ports.WebFetcher, slots *webSlots) *dispatcher {
	return &dispatcher{over: over, wire: w, search: search, fetch: fetch, slots: slots,
		execs: map[uint32]*tools.Call{}, queries: map[uint32]*tools.Call{}, completing: map[string]*tools.Call{},
		modelCall: map[string]string{}, edits: map[string]*argStream{}, webDone: make(chan webOutcome, 8), bg: newBackground()}
}

// streaming shows the card of a call the model started, with its arguments
// as they stream.
func (d *dispatcher) streaming(ev run.Event) {
	switch e := ev.(type) {
	case run.ToolCallStart:
		d.modelCall[e.CallID] = e.ModelCallID
		d.wire.emit(output.PartialToolCall(e.CallID, placeholder(e.CallID), "", e.ModelCallID))
		d.streamEdit(e)
	case run.ToolCallArgsDelta:
		d.wire.emit(output.PartialToolCall(e.CallID, placeholder(e.CallID), e.Text, d.modelCall[e.CallID]))
		d.streamEdit(e)
	case run.ToolCallFailed:
		d.streamEdit(e)
		d.wire.emit(output.ToolCallCompleted(e.CallID, placeholder(e.CallID), d.modelCall[e.CallID]))
	}
}

func placeholder(callID string) *agentv1.ToolCall {
	id := callID
	return &agentv1.ToolCall{ToolCallId: &id}
}

// start dispatches a round's calls; env is read per call, so a call sees
// what an earlier one of the round changed (the todo list).
func (d *dispatcher) start(ctx context.Context, calls []llm.ToolCall, env func() tools.Env) {
	for _, c := range calls {
		delete(d.edits, c.CallID)
		call := tools.New(c, env())
		a := call.Start()
		d.record(call.Card())
		d.wire.emit(output.ToolCallStarted(c.CallID, call.Card(), d.modelCall[c.CallID]))
		d.apply(ctx, call, a)
	}
}

// apply carries out a call's next action; a web request runs under ctx.
func (d *dispatcher) apply(ctx context.Context, call *tools.Call, a tools.Action) {
	if a.Exec != nil {
		id, err := d.wire.execID()
		if err != nil {
			a = call.Abort("no exec id left: " + err.Error())
		} else {
			d.execs[id] = call
			d.wire.emit(output.Exec(id, a.Exec))
		}
	}
	if a.Query != nil {
		id, err := d.wire.interactionID()
		if err != nil {
			a = call.Abort("no interaction id left: " + err.Error())
		} else {
			d.queries[id] = call
			d.wire.emit(output.Query(id, a.Query))
		}
	}
	if a.Web != nil {
		d.runWeb(ctx, call, a.Web)
	}
	if a.Await != nil {
		d.await(ctx, call, a.Await)
	}
	if a.Delta != nil {
		d.wire.emit(output.ToolCallDelta(call.ID(), a.Delta, d.modelCall[call.ID()]))
	}
	if a.Result != nil {
		d.forget(call)
		d.completing[call.ID()] = call
		d.deliver(ctx, call, *a.Result)
	}
}

// forget drops the wire ids of a finished call.
func (d *dispatcher) forget(call *tools.Call) {
	for id, c := range d.execs {
		if c == call {
			delete(d.execs, id)
		}
	}
	for id, c := range d.queries {
		if c == call {
			delete(d.queries, id)
		}
	}
	d.bg.forget(call)
}

// runWeb runs an approved search or fetch off the turn's goroutine, under
// ctx (the turn's, whose identity names the user), once one of its user's
// web slots is free; its outcome comes back on webDone.
// A kind the server cannot run (the model called a tool it was not
// offered) fails at once.
func (d *dispatcher) runWeb(ctx context.Context, call *tools.Call, w *tools.Web) {
	if (w.Fetch != "" && d.fetch == nil) || (w.Fetch == "" && d.search == nil) {
		d.apply(ctx, call, call.OnWeb(tools.WebOutcome{Err: errors.New("web access is not configured on this Keygate")}))
		return
	}
	go func(ctx context.Context) {
		o := webOutcome{call: call}
		who, _ := identity.FromContext(ctx)
		release, err := d.slots.acquire(ctx, who.UserID)
		switch {
		case err != nil:
			o.Err = err
		case w.Fetch != "":
			o.Page, o.Err = d.fetch.Fetch(ctx, w.Fetch)
		default:
			o.Results, o.Err = d.search.Search(ctx, w.Search, tools.SearchLimit())
		}
		if release != nil {
			release()
		}
		select {
		case d.webDone <- o:
		case <-d.over:
		}
	}(ctx)
}

// onWeb completes a call with its web outcome.
func (d *dispatcher) onWeb(ctx context.Context, o webOutcome) {
	d.apply(ctx, o.call, o.call.OnWeb(o.WebOutcome))
}

// onExec routes an exec result to its call.
func (d *dispatcher) onExec(ctx context.Context, m *agentv1.ExecClientMessage) {
	if d.sideResult(ctx, m) {
		return
	}
	if call, ok := d.execs[m.GetId()]; ok {
		d.mirrorShell(call, m)
		d.apply(ctx, call, call.OnExec(m))
	}
}

// onControl routes an exec's stream close or throw to its call.
func (d *dispatcher) onControl(ctx context.Context, m *agentv1.ExecClientControlMessage) {
	if sc := m.GetStreamClose(); sc != nil {
		if call, ok := d.execs[sc.GetId()]; ok {
			d.apply(ctx, call, call.OnStreamClose())
		}
	}
	if t := m.GetThrow(); t != nil {
		if call, ok := d.execs[t.GetId()]; ok {
			d.apply(ctx, call, call.OnThrow(t))
		}
	}
}

// onInteraction routes the user's answer to its call.
func (d *dispatcher) onInteraction(ctx context.Context, r *agentv1.InteractionResponse) {
	if call, ok := d.queries[r.GetId()]; ok {
		d.apply(ctx, call, call.OnInteraction(r))
	}
}

// abortAll aborts every running exec on the client; the calls stay open.
func (d *dispatcher) abortAll() {
	for id := range d.execs {
		d.wire.emit(output.Abort(id))
		delete(d.execs, id)
	}
}

// interrupt aborts every running exec and completes its call as a tool
// error with reason; it returns those results, for the run to commit with
// the message that interrupted the round.
func (d *dispatcher) interrupt(reason string) []llm.ToolResult {
	var detached []llm.ToolResult
	for id, call := range d.execs {
		d.wire.emit(output.Abort(id))
		if a := call.Abort(reason); a.Result != nil {
			d.completing[call.ID()] = call
			detached = append(detached, *a.Result)
		}
		delete(d.execs, id)
	}
	for _, call := range d.bg.waitingCalls() {
		if a := call.Abort(reason); a.Result != nil {
			d.forget(call)
			d.completing[call.ID()] = call
			detached = append(detached, *a.Result)
		}
	}
	return detached
}

// cancelSubagent aborts the Task exec of a subagent, named by its tool call
// id; the Task completes as a tool error and the run goes on.
func (d *dispatcher) cancelSubagent(ctx context.Context, id string) {
	for execID, call := range d.execs {
		if call.ID() != id || call.Card().GetTaskToolCall() == nil {
			continue
		}
		d.wire.emit(output.Abort(execID))
		d.apply(ctx, call, call.Abort("the user cancelled the subagent"))
	}
}

// completed sends tool_call_completed for committed results: the call a
// tool-result commit names, or every delivered one after an interruption.
func (d *dispatcher) completed(c run.Cause) {
	for id, call := range d.completing {
		if !c.Interrupted && id != c.CallID {
			continue
		}
		delete(d.completing, id)
		d.record(call.Card())
		d.wire.emit(output.ToolCallCompleted(call.ID(), call.Card(), d.modelCall[call.ID()]))
	}
}
