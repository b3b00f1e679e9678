// Package gateway is the use case of the compatible API: a coding agent
// (Claude Code, the Codex CLI, opencode) or a script asks Keygate for one
// model call in a provider protocol's own wire format, and Keygate makes it
// on the organisation's models with the same governance as a Cursor turn.
//
// It is shaped around the ModelProvider chain the Cursor path uses
// (router, budgets, metrics, traces, the provider client that writes the
// call record): a request becomes one routed ModelCall of kind api, keyed
// for stickiness by the caller's session, so aliases, key pools, failover
// before the first token, budgets, per-minute limits and call records all
// apply unchanged. The wire formats are the inbound adapter's; this
// package sees only llm.Request and llm.Event, and decides which model
// names a caller may use (the enabled models and aliases Cursor's picker
// offers, by id or display name) and what a call is recorded as.
//
// Place in the hexagon: use case. Imports: the standard library, domain,
// ports and go.uber.org/zap.
package gateway
