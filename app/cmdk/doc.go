// Package cmdk is the use case of Cursor's inline edits (Cmd-K in the
// editor and the terminal) and of its commit messages and branch names on
// the organisation's own models: each request becomes one routed model
// call on the provider chain Agent turns use (routing, key pools,
// failover, budgets, call records, metrics, traces), of kind cmdk or
// commit, with the prompt of domain/cmdk or domain/gitmsg.
//
// Each feature has its model, chosen per request (Options.EditModel,
// Options.CommitModel) so that a console change applies at once and a
// default may depend on the caller (the user's last Agent model for
// commit messages). A feature without a model is not served here: the
// adapter relays it to Cursor as before.
//
// An inline edit streams as the client renders it: the replacement lines
// as each completes, or the answer's text in chat mode; cancelling the
// request's context (the user pressed Escape) cancels the model call. A
// terminal command, a commit message and a branch name are short and
// answered whole.
//
// Place in the hexagon: use case. Imports: the standard library, domain,
// ports and go.uber.org/zap.
package cmdk
