// Package routing holds the rules of Keygate's gateway routing: how a
// provider's key pool picks a key, how an alias orders its targets for one
// call (the conversation's sticky target first while it is healthy), which
// provider failures cool a key or a target down and which move a call to
// the next one, and the per-minute limits of a target or a user.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/llm. It decides; it stores nothing and calls nothing: the router in
// app/routing reads the shared health from the store, asks this package what
// to try next and writes back what happened.
package routing
