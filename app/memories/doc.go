// Package memories is the use case of Cursor's memories kept by Keygate:
// what a user asks the Agent to remember is stored for that user alone,
// listed, edited and deleted from Cursor's settings as Cursor's own
// memories are, and recalled into each of the user's turns (the client
// never sends memories back with a run, so the server projects them).
//
// It is shaped around the caller on ctx (identity.FromContext), which the
// Cursor proxy puts there for every request: no method takes a user id, so
// a user reaches only their own memories. Text is bounded on the way in
// (title, knowledge, memories per user), so a turn's memories channel stays
// small whatever the client sends.
//
// Place in the hexagon: use case. Imports: the standard library, domain,
// ports and github.com/google/uuid.
package memories
