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

// Call is one tool call of a round, from dispatch to its result. It is not
// safe for concurrent use; the run layer drives it from one goroutine.
type Call struct {
	call llm.ToolCall
	env  Env
	args map[string]any
	card *agentv1.ToolCall
	// tool handles the call; nil until Start found it.
	tool *tool
	// wait is the answer the call waits for.
	wait wait
	// stdout and stderr collect streamed shell output for the model.
	stdout, stderr []byte
	// edit is the file change of a Write or StrReplace.
	edit *edit
	// lints is a ReadLints going through its paths.
	lints *lints
	// notebook is an EditNotebook's change.
	notebook *notebookEdit
	// hooks is what the user's hooks added to the call's execs.
	hooks []*agentv1.HookAdditionalContext
	// shell is the timing and combined output of a Shell call.
	shell *shellRun
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
	call := &Call{call: c, env: env, args: map[string]any{}}
	if len(c.Arguments) > 0 {
		_ = json.Unmarshal(c.Arguments, &call.args) // the engine already rejected malformed JSON
	}
	id := c.CallID
	call.card = &agentv1.ToolCall{ToolCallId: &id}
	return call
}

// ID returns the model's call id.
func (c *Call) ID() string { return c.call.CallID }

// Card returns the typed ToolCall for tool_call_started and
// tool_call_completed: arguments once dispatched, the result once done.
func (c *Call) Card() *agentv1.ToolCall { return c.card }

// Start stamps the card and returns the call's first action: an exec, an
// interaction query, or at once a result (unknown tool, missing argument,
// a tool the server runs).
func (c *Call) Start() Action {
	ms := uint64(c.env.Now().UnixMilli())
	c.card.StartedAtMs = &ms
	c.tool = lookup(c.call.Name)
	if c.tool == nil && c.directMCP() != nil {
		c.tool = directMCPTool
	}
	if c.tool == nil {
		return c.fail(fmt.Sprintf("unknown tool %q", c.call.Name))
	}
	a, err := c.tool.start(c)
	if err != nil {
		return c.fail(err.Error())
	}
	c.waitFor(a)
	return a
}

// waitFor notes the answer a asks for.
func (c *Call) waitFor(a Action) {
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
}

// OnExec feeds the client's answer to the call's exec.
func (c *Call) OnExec(m *agentv1.ExecClientMessage) Action {
	if c.done {
		return Action{}
	}
	if c.tool == nil || c.tool.onExec == nil {
		return c.unexpected(m)
	}
	c.hooks = append(c.hooks, m.GetHookAdditionalContexts()...)
	// A shell's hooks report in its stream.
	c.hooks = append(c.hooks, m.GetShellStream().GetHookContext().GetHookAdditionalContexts()...)
	a := c.tool.onExec(c, m)
	c.waitFor(a)
	return a
}

// unexpected answers an exec result the call cannot use: an empty message
// is not a result and changes nothing, another tool's result fails the call.
func (c *Call) unexpected(m *agentv1.ExecClientMessage) Action {
	if m.GetMessage() == nil {
		return Action{}
	}
	return c.fail(fmt.Sprintf("unexpected exec result for tool %s", c.call.Name))
}

// OnStreamClose handles exec_client_control_message.stream_close. For a
// non-streaming exec it is only a transport acknowledgement, which the
// client may send even before the result, so it changes nothing; a tool
// with a streamed exec (Shell) decides what it means.
func (c *Call) OnStreamClose() Action {
	if c.done || c.wait != waitExec || c.tool.onStreamClose == nil {
		return Action{}
	}
	return c.tool.onStreamClose(c)
}

// OnInteraction feeds the user's answer to the call's query.
func (c *Call) OnInteraction(r *agentv1.InteractionResponse) Action {
	if c.done || c.wait != waitQuery {
		return Action{}
	}
	if c.tool.onInteraction == nil {
		return c.fail("unexpected interaction response")
	}
	a := c.tool.onInteraction(c, r)
	c.waitFor(a)
	return a
}

// OnTask completes a call that waits for a background task: the task's
// completion, or nil when the wait is over and the task still runs.
func (c *Call) OnTask(done *agentv1.BackgroundTaskCompletion) Action {
	if c.done || c.wait != waitTask || c.tool.onTask == nil {
		return Action{}
	}
	return c.tool.onTask(c, done)
}

// OnWeb completes an approved search or fetch with what the server got.
func (c *Call) OnWeb(o WebOutcome) Action {
	if c.done || c.wait != waitWeb {
		return Action{}
	}
	a := c.tool.onWeb(c, o)
	c.waitFor(a)
	return a
}

// OnThrow fails the call with the client's error.
func (c *Call) OnThrow(t *agentv1.ExecClientThrow) Action {
	if c.done {
		return Action{}
	}
	return c.fail("the client failed to run the tool: " + t.GetError())
}

// Abort completes a call that will never get its answer (cancel, a queued
// message interrupting the round).
func (c *Call) Abort(reason string) Action {
	if c.done {
		return Action{}
	}
	return c.fail(reason)
}

// fail completes the call as a tool error.
func (c *Call) fail(msg string) Action {
	return c.finish(msg, true)
}

func (c *Call) finish(content string, isErr bool) Action {
	return c.finishWith(llm.ToolResult{Content: content, IsError: isErr})
}

// finishWith completes the call with r (an image result). What the user's
// hooks added to the call's execs goes to the model with it and to the
// card.
func (c *Call) finishWith(r llm.ToolResult) Action {
	c.done = true
	ms := uint64(c.env.Now().UnixMilli())
	c.card.CompletedAtMs = &ms
	r.CallID, r.Name = c.call.CallID, c.call.Name
	for _, h := range c.hooks {
		r.Content += fmt.Sprintf("\n\n<hook_context event=%q>\n%s\n</hook_context>", h.GetHookEventName(), h.GetContent())
	}
	c.card.HookAdditionalContexts = append(c.card.HookAdditionalContexts, c.hooks...)
	return Action{Result: &r}
}

func (c *Call) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := c.args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func (c *Call) num(key string) (int64, bool) {
	f, ok := c.args[key].(float64)
	return int64(f), ok
}

func (c *Call) flag(key string) bool {
	b, _ := c.args[key].(bool)
	return b
}

// required returns the first non-empty string argument among keys, or an
// error naming the first key.
func (c *Call) required(keys ...string) (string, error) {
	if s := c.str(keys...); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("%s: missing required argument %q", c.call.Name, keys[0])
}
