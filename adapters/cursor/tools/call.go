package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
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
	// Result completes the call with what the model sees.
	Result *llm.ToolResult
}

// Web is one server-side web request: a search term or a URL.
type Web struct {
	Search string
	Fetch  string
}

// Call is one tool call of a round, from dispatch to its result. It is not
// safe for concurrent use; the run layer drives it from one goroutine.
type Call struct {
	call  llm.ToolCall
	env   Env
	args  map[string]any
	card  *agentv1.ToolCall
	state step
	// out collects streamed shell output for the model.
	stdout, stderr []byte
	// edit is the pending edit of a StrReplace between its read and write.
	edit *edit
	done bool
}

// step is where a multi-exec call stands.
type step uint8

const (
	stepSingle step = iota
	stepEditRead
	stepEditWrite
	stepShell
	stepMCP
	stepTask
	stepQuery
	stepLints
	stepWeb
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

// Done reports whether the call has its result.
func (c *Call) Done() bool { return c.done }

// Card returns the typed ToolCall for tool_call_started and
// tool_call_completed: arguments once dispatched, the result once done.
func (c *Call) Card() *agentv1.ToolCall { return c.card }

// Start stamps the card and returns the call's first action: an exec, an
// interaction query, or at once a result (unknown tool, missing argument).
func (c *Call) Start() Action {
	ms := uint64(c.env.Now().UnixMilli())
	c.card.StartedAtMs = &ms
	a, err := c.start()
	if err != nil {
		return c.fail(err.Error())
	}
	return a
}

func (c *Call) start() (Action, error) {
	switch Canonical(c.call.Name) {
	case Canonical(Read):
		return c.startRead()
	case Canonical(Write):
		return c.startWrite()
	case Canonical(StrReplace):
		return c.startEdit()
	case Canonical(Delete):
		return c.startDelete()
	case Canonical(Ls):
		return c.startLs()
	case Canonical(Grep):
		return c.startGrep()
	case Canonical(Glob):
		return c.startGlob()
	case Canonical(Shell), "bash":
		return c.startShell()
	case Canonical(CallMcpTool):
		return c.startMetaMCP()
	case Canonical(AskQuestion):
		return c.startAsk()
	case Canonical(Task):
		return c.startTask()
	case Canonical(CreatePlan):
		return c.startPlan()
	case Canonical(SwitchMode):
		return c.startSwitchMode()
	case Canonical(ReadLints):
		return c.startLints()
	case Canonical(TodoWrite):
		return c.todos()
	case Canonical(WebSearch):
		return c.startSearch()
	case Canonical(WebFetch):
		return c.startFetch()
	}
	if d := c.directMCP(); d != nil {
		return c.startMCP(d)
	}
	return Action{}, fmt.Errorf("unknown tool %q", c.call.Name)
}

// OnExec feeds the client's answer to the call's exec.
func (c *Call) OnExec(m *agentv1.ExecClientMessage) Action {
	if c.done {
		return Action{}
	}
	switch c.state {
	case stepMCP:
		return c.onMCP(m)
	case stepTask:
		return c.onTask(m)
	case stepLints:
		return c.onLints(m)
	case stepEditRead:
		return c.onEditRead(m)
	case stepEditWrite:
		return c.onEditWrite(m)
	case stepShell:
		return c.onShell(m)
	}
	return c.onSingle(m)
}

// OnStreamClose handles exec_client_control_message.stream_close. For a
// non-streaming exec it is only a transport acknowledgement that may even
// precede the result (pitfall P5), so it changes nothing; a shell stream
// that closes before its exit event fails the call.
func (c *Call) OnStreamClose() Action {
	if c.done || c.state != stepShell {
		return Action{}
	}
	return c.fail("the shell stream closed before the command exited")
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
	c.done = true
	ms := uint64(c.env.Now().UnixMilli())
	c.card.CompletedAtMs = &ms
	return Action{Result: &llm.ToolResult{CallID: c.call.CallID, Name: c.call.Name, Content: content, IsError: isErr}}
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
