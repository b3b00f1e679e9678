package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// tool is one Cursor tool the model may call: a catalog entry (its
// description and parameters are in catalog.json, under name) and the
// handlers that carry a call of it from dispatch to its result. Each tool is
// declared in its own file and listed once in registry.
//
// A handler sees only calls of its own tool, never a finished call; it
// returns the call's next action and ends the call with c.finish or c.fail.
type tool struct {
	// name is the catalog name; aliases are other names the model may use
	// for the same tool. Both match case- and punctuation-insensitively.
	name    string
	aliases []string
	// modes are the modes that offer the tool. A web tool is offered only
	// when the turn's WebAccess allows its kind.
	modes []string
	web   webKind
	// runs is where the call's steps run, and so which handler it needs.
	runs runs
	// start reads the call's arguments, fills its card and returns its first
	// action; an error completes the call as a tool error.
	start func(*Call) (Action, error)
	// onExec handles the client's answer to the call's exec (runs is
	// onClient). An answer of another tool must fail the call, an empty one
	// is ignored (c.unexpected does both).
	onExec func(*Call, *agentv1.ExecClientMessage) Action
	// onStreamClose handles the client closing a streamed exec; nil ignores
	// it (for a non-streaming exec it is only a transport acknowledgement).
	onStreamClose func(*Call) Action
	// onInteraction handles the user's answer to the call's query (runs is
	// withUser).
	onInteraction func(*Call, *agentv1.InteractionResponse) Action
	// onWeb handles the outcome of the web request the user approved.
	onWeb func(c *Call, o WebOutcome) Action
	// onTask handles the end of a wait for a background task (awaits): the
	// task's completion, or nil when the wait timed out.
	awaits bool
	onTask func(c *Call, done *agentv1.BackgroundTaskCompletion) Action
}

// webKind says whether a tool needs the server's web access, and which.
type webKind uint8

const (
	notWeb webKind = iota
	webSearch
	webFetch
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
	if (t.web == webSearch && !web.Search) || (t.web == webFetch && !web.Fetch) {
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
