// Package routing is Keygate's gateway router: a ports.ModelProvider the
// composition root wraps around the provider client, below the run engine.
// A call whose endpoint names a route (a model, or an alias over several
// targets) is resolved here per attempt: the target (the conversation's
// last one while it is healthy), the key (from its provider's pool), and
// on a 429, 401, 5xx, refused connection or missing first token, the next
// key or target at once — always before any output reached the engine,
// never after. Keys and targets that fail rest for a while, every replica
// seeing it through the store; a key that keeps failing authentication is
// disabled. The engine's own retries stay the engine's: a call the router
// could not serve fails as the last attempt failed.
//
// Place in the hexagon: app. Imports: the standard library, domain, ports
// and go.uber.org/zap (the injected logger); the composition root hands it
// the provider client, the stores and the configuration (app/control.Catalog
// implements Catalog).
package routing
