package tools

import (
	"fmt"

	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// tool is one Cursor tool the model may call: a catalog entry (its
// description and parameters are in catalog.json, under name), where it
// runs and which modes offer it, and open, which makes the handler of one
// call of it. Each tool is declared in its own file and listed once in
// registry.
type tool struct {
	// name is the catalog name; aliases are other names the model may use
	// for the same tool. Both match case- and punctuation-insensitively.
	name    string
	aliases []string
	// modes are the modes that offer the tool. A web tool is offered only
	// when the turn's WebAccess allows its kind.
	modes []string
	web   webKind
	// runs is where the call's steps run, and so which answers its handler
	// takes; awaits says it waits for background tasks (a taskHandler).
	runs   runs
	awaits bool
	// open returns the handler of a new call of the tool.
	open func() handler
}

// handler carries one call of its tool from its start to its result, and
// holds what the call needs between its steps (a shell's output so far, the
// file an edit read). start reads the call's arguments, fills its card and
// returns its first action; an error completes the call as a tool error.
// The answers it takes are the optional interfaces below, as the tool's
// runs needs them. A handler sees only its own call and never a finished
// one; it returns the call's next action and ends the call with finish or
// fail.
type handler interface {
	start(c *call) (Action, error)
}

// execHandler takes the client's answer to the call's exec (runs is
// onClient). An answer of another tool must fail the call, an empty one is
// ignored (c.unexpected does both).
type execHandler interface {
	onExec(c *call, m *agentv1.ExecClientMessage) Action
}

// streamCloser handles the client closing a streamed exec; a handler
// without it ignores the close (for a non-streaming exec it is only a
// transport acknowledgement).
type streamCloser interface {
	onStreamClose(c *call) Action
}

// interactionHandler takes the user's answer to the call's query (runs is
// withUser).
type interactionHandler interface {
	onInteraction(c *call, r *agentv1.InteractionResponse) Action
}

// webHandler takes the outcome of the web request the user approved.
type webHandler interface {
	onWeb(c *call, o WebOutcome) Action
}

// taskHandler takes the end of a wait for a background task: the task's
// completion, or nil when the wait timed out.
type taskHandler interface {
	onTask(c *call, done *agentv1.BackgroundTaskCompletion) Action
}

// router hands a call to another tool before it starts (CallMcpTool of
// mcp_auth is McpAuth's call); nil keeps it.
type router interface {
	route(c *call) *tool
}

// webKind says whether a tool needs the server's web access, and which.
type webKind uint8

const (
	notWeb webKind = iota
	searchesWeb
	fetchesWeb
)

// WebAccess says which server-side web tools a turn may offer: the server
// has the backend (a search backend, the fetcher) and the client did not
// switch the tool off (request context web_search_enabled,
// web_fetch_enabled).
type WebAccess struct{ Search, Fetch bool }

// runs is where a tool's steps run.
type runs uint8

const (
	// onClient: the client runs an exec and answers with its result.
	onClient runs = iota + 1
	// withUser: the user answers an interaction query.
	withUser
	// onServer: the server completes the call at once.
	onServer
)

// offeredIn reports whether mode offers t, web saying which web tools the
// turn may offer.
func (t *tool) offeredIn(mode string, web WebAccess) bool {
	if (t.web == searchesWeb && !web.Search) || (t.web == fetchesWeb && !web.Fetch) {
		return false
	}
	for _, m := range t.modes {
		if m == mode {
			return true
		}
	}
	return false
}

// lookup returns the registered tool a model's tool name means, or nil.
func lookup(name string) *tool { return byName[Canonical(name)] }

var byName = func() map[string]*tool {
	m := map[string]*tool{}
	for _, t := range registry {
		m[Canonical(t.name)] = t
		for _, a := range t.aliases {
			m[Canonical(a)] = t
		}
	}
	return m
}()

// call is what a tool sees of one call of it: the model's call id, the
// name it used and its arguments, the run's Env, and the card the tool
// fills. A tool ends the call by returning finish or fail; Call completes
// the card.
type call struct {
	id, name string
	args     map[string]any
	env      Env
	card     *agentv1.ToolCall
}

// exec builds the call's exec: its id is the call id, and the client may
// add hook contexts to it.
func (c *call) exec(set func(*agentv1.ExecServerMessage)) Action {
	accept := true
	m := &agentv1.ExecServerMessage{ExecId: c.id, AcceptHookAdditionalContexts: &accept}
	set(m)
	return Action{Exec: m}
}

// unexpected answers an exec result the call cannot use: an empty message
// is not a result and changes nothing, another tool's result fails the call.
func (c *call) unexpected(m *agentv1.ExecClientMessage) Action {
	if m.GetMessage() == nil {
		return Action{}
	}
	return fail(fmt.Sprintf("unexpected exec result for tool %s", c.name))
}

func (c *call) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := c.args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func (c *call) num(key string) (int64, bool) {
	f, ok := c.args[key].(float64)
	return int64(f), ok
}

func (c *call) flag(key string) bool {
	b, _ := c.args[key].(bool)
	return b
}

func (c *call) optInt(key string) *int32 {
	if n, ok := c.num(key); ok {
		v := int32(n)
		return &v
	}
	return nil
}

// required returns the first non-empty string argument among keys, or an
// error naming the first key.
func (c *call) required(keys ...string) (string, error) {
	if s := c.str(keys...); s != "" {
		return s, nil
	}
	return "", c.missing(keys[0])
}

// missing is the error of a call without its required argument key.
func (c *call) missing(key string) error {
	return fmt.Errorf("%s: missing required argument %q", c.name, key)
}

// finish ends a call with what the model reads; isErr marks a tool error.
func finish(content string, isErr bool) Action {
	return Action{Result: &llm.ToolResult{Content: content, IsError: isErr}}
}

// fail ends a call as a tool error.
func fail(msg string) Action { return finish(msg, true) }

// finishWith ends a call with r (an image result).
func finishWith(r llm.ToolResult) Action { return Action{Result: &r} }
