// Package turn decides which messages a client input adds to a
// conversation: the request-context message (the volatile per-request
// context compiled into one prompt-origin user message) and the runtime
// message (the user's text with the turn's selected context). Its rules keep
// provider-visible history append-only, so the longest provider prefix
// survives every turn:
//
//   - context enters history as its own message, request-context:<event>,
//     never through the system prompt, and only on turn-starting inputs;
//   - it is appended only when it differs from the latest request context
//     in history, immediately before the runtime message; an older context
//     is never edited (A → B → A appends A again);
//   - a retried event reuses what it stored before, so retries neither
//     duplicate nor conflict.
//
// Place in the hexagon: domain. It imports only the standard library and
// other domain packages, does no I/O and carries no struct tags.
package turn
