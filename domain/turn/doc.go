// Package turn decides which messages a client input adds to a
// conversation: the request-context messages (the volatile per-request
// context compiled into prompt-origin user messages) and the runtime
// message (the user's text with the turn's selected context). Its rules keep
// provider-visible history append-only, so the longest provider prefix
// survives every turn:
//
//   - context enters history as messages of its own, never through the
//     system prompt or the tools, and only on turn-starting inputs;
//   - the context is split into channels that change on their own (the
//     environment, the MCP servers, the mode, the editor's state, the open
//     files' contents, the user's memories), each its
//     own message request-context[/<channel>]:<event>;
//   - a channel's message is appended only when it differs from the latest
//     message of that channel in history, immediately before the runtime
//     message; an older one is never edited (A → B → A appends A again);
//   - a retried event reuses what it stored before, so retries neither
//     duplicate nor conflict.
//
// Place in the hexagon: domain. Imports: the standard library and domain. It
// does no I/O and carries no struct tags.
package turn
