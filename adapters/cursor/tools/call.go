package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// Env is what a call needs to know about its run.
type Env struct {
	ConversationID string
	// RootConversationID is the conversation group a subagent reports to
	// (the run request's conversation_group_id, else ConversationID).
	RootConversationID string
	// ModelID is the run's model; a Task without a model inherits it.
	ModelID string
	// MCP are the client's direct MCP tools; Servers the MCP servers the
	// CallMcpTool meta tool reaches.
	MCP     []*agentv1.McpToolDefinition
	Servers []*agentv1.McpDescriptor
	// Todos is the conversation's todo list, which TodoWrite replaces or
	// merges into.
	Todos []*agentv1.TodoItem
	// Images says the model takes images: a Read of an image gives it the
	// image, otherwise a note.
	Images bool
	// Rules are the rules applied on demand (FetchRules reads the
	// agent-requestable ones); Workspaces the workspace folders globs are
	// relative to.
	Rules      []*agentv1.CursorRule
	Workspaces []string
	// SubagentOverrides are the user's model choices per subagent type
	// (a model, the parent's model, or none: the type is turned off).
	SubagentOverrides []*agentv1.SubagentModelOverride
	// Subagents are the ids of the conversation's subagents (Await tells a
	// subagent from a background shell by them).
	Subagents []string
	// TerminalsFolder is where the client writes background shells' output.
	TerminalsFolder string
	// NoMCPAuth says the client cannot sign in to MCP servers.
	NoMCPAuth bool
	// Now stamps started_at_ms and completed_at_ms; nil uses time.Now.
	Now func() time.Time
}

// Action is what the run layer does next for a call. Any combination of
// fields may be set; Result ends the call.
type Action struct {
	// Exec is a request for the client; the caller assigns its id.
	Exec *agentv1.ExecServerMessage
	// Query is an interaction query; the caller assigns its id.
	Query *agentv1.InteractionQuery
	// Delta is live output for the tool card (shell stdout and stderr).
	Delta *agentv1.ToolCallDelta
	// Web is a search or fetch the server runs now that the user approved
	// it; its outcome goes to OnWeb.
	Web *Web
	// Await is a background task the call waits for; the task's completion
	// or the deadline goes to OnTask.
	Await *Await
	// Result completes the call with what the model sees.
	Result *llm.ToolResult
}

// Await is a background task a call waits for, at most For.
type Await struct {
	TaskID string
	For    time.Duration
}

// Web is one server-side web request: a search term or a URL.
type Web struct {
	Search string
	Fetch  string
}

// WebOutcome is what the server got for a Web request: the search results
// or the fetched page, or the error that ended it.
type WebOutcome struct {
	Results []ports.WebResult
	Page    ports.WebPage
	Err     error
}

// Call is one tool call of a round, from dispatch to its result: it finds
// the call's tool, hands it the client's and the user's answers while the
// call waits for them, and completes the card once the tool gave the
// result. It is not safe for concurrent use; the run layer drives it from
// one goroutine.
type Call struct {
	// in is what the tool sees of the call.
	in *call
	// h handles the call; nil until Start found its tool.
	h handler
	// wait is the answer the call waits for.
	wait wait
	// hooks is what the user's hooks added to the call's execs.
	hooks []*agentv1.HookAdditionalContext
	done  bool
}

// wait is the answer a started call waits for; the others are ignored.
type wait uint8

const (
	waitNothing wait = iota
	waitExec
	waitQuery
	waitWeb
	waitTask
)

// New prepares a call for dispatch.
func New(c llm.ToolCall, env Env) *Call {
	if env.Now == nil {
		env.Now = time.Now
	}
	in := &call{id: c.CallID, name: c.Name, env: env, args: map[string]any{}}
	if len(c.Arguments) > 0 {
		_ = json.Unmarshal(c.Arguments, &in.args) // the engine already rejected malformed JSON
	}
	id := c.CallID
	in.card = &agentv1.ToolCall{ToolCallId: &id}
	return &Call{in: in}
}

// ID returns the model's call id.
func (c *Call) ID() string { return c.in.id }

// Card returns the typed ToolCall for tool_call_started and
// tool_call_completed: arguments once dispatched, the result once done.
func (c *Call) Card() *agentv1.ToolCall { return c.in.card }

// Start stamps the card and returns the call's first action: an exec, an
// interaction query, or at once a result (unknown tool, missing argument,
// a tool the server runs).
func (c *Call) Start() Action {
	ms := uint64(c.in.env.Now().UnixMilli())
	c.in.card.StartedAtMs = &ms
	t := lookup(c.in.name)
	if t == nil && directMCP(c.in) != nil {
		t = directMCPTool
	}
	if t == nil {
		return c.settle(fail(fmt.Sprintf("unknown tool %q", c.in.name)))
	}
	c.h = t.open()
	if r, ok := c.h.(router); ok {
		if to := r.route(c.in); to != nil {
			c.h = to.open()
		}
	}
	a, err := c.h.start(c.in)
	if err != nil {
		return c.settle(fail(err.Error()))
	}
	return c.settle(a)
}

// settle notes the answer a asks for and, when a ends the call, completes
// it: the result gets the call's id and name, and what the user's hooks
// added to the call's execs goes to the model with it and to the card.
func (c *Call) settle(a Action) Action {
	switch {
	case a.Exec != nil:
		c.wait = waitExec
	case a.Query != nil:
		c.wait = waitQuery
	case a.Web != nil:
		c.wait = waitWeb
	case a.Await != nil:
		c.wait = waitTask
	}
	r := a.Result
	if r == nil {
		return a
	}
	c.done = true
	ms := uint64(c.in.env.Now().UnixMilli())
	c.in.card.CompletedAtMs = &ms
	r.CallID, r.Name = c.in.id, c.in.name
	for _, h := range c.hooks {
		r.Content += fmt.Sprintf("\n\n<hook_context event=%q>\n%s\n</hook_context>", h.GetHookEventName(), h.GetContent())
	}
	c.in.card.HookAdditionalContexts = append(c.in.card.HookAdditionalContexts, c.hooks...)
	return a
}

// OnExec feeds the client's answer to the call's exec.
func (c *Call) OnExec(m *agentv1.ExecClientMessage) Action {
	if c.done {
		return Action{}
	}
	h, ok := c.h.(execHandler)
	if !ok {
		return c.settle(c.in.unexpected(m))
	}
	c.hooks = append(c.hooks, m.GetHookAdditionalContexts()...)
	// A shell's hooks report in its stream.
	c.hooks = append(c.hooks, m.GetShellStream().GetHookContext().GetHookAdditionalContexts()...)
	return c.settle(h.onExec(c.in, m))
}

// OnStreamClose handles exec_client_control_message.stream_close. For a
// non-streaming exec it is only a transport acknowledgement, which the
// client may send even before the result, so it changes nothing; a tool
// with a streamed exec (Shell) decides what it means.
func (c *Call) OnStreamClose() Action {
	h, ok := c.h.(streamCloser)
	if c.done || c.wait != waitExec || !ok {
		return Action{}
	}
	return c.settle(h.onStreamClose(c.in))
}

// OnInteraction feeds the user's answer to the call's query.
func (c *Call) OnInteraction(r *agentv1.InteractionResponse) Action {
	if c.done || c.wait != waitQuery {
		return Action{}
	}
	h, ok := c.h.(interactionHandler)
	if !ok {
		return c.settle(fail("unexpected interaction response"))
	}
	return c.settle(h.onInteraction(c.in, r))
}

// OnTask completes a call that waits for a background task: the task's
// completion, or nil when the wait is over and the task still runs.
func (c *Call) OnTask(done *agentv1.BackgroundTaskCompletion) Action {
	h, ok := c.h.(taskHandler)
	if c.done || c.wait != waitTask || !ok {
		return Action{}
	}
	return c.settle(h.onTask(c.in, done))
}

// OnWeb completes an approved search or fetch with what the server got.
func (c *Call) OnWeb(o WebOutcome) Action {
	h, ok := c.h.(webHandler)
	if c.done || c.wait != waitWeb || !ok {
		return Action{}
	}
	return c.settle(h.onWeb(c.in, o))
}

// OnThrow fails the call with the client's error.
func (c *Call) OnThrow(t *agentv1.ExecClientThrow) Action {
	if c.done {
		return Action{}
	}
	return c.settle(fail("the client failed to run the tool: " + t.GetError()))
}

// Abort completes a call that will never get its answer (cancel, a queued
// message interrupting the round).
func (c *Call) Abort(reason string) Action {
	if c.done {
		return Action{}
	}
	return c.settle(fail(reason))
}
