// Package conversation is the canonical conversation model: immutable
// messages with stable identities, their canonical encoding, and checkpoints
// (immutable message lists chained by parent) with the append, branch and
// replace rules every store must follow.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/llm. It does no I/O and carries no struct tags. Stores persist
// exactly the values defined here: a message as its canonical encoding
// ([Message.Encode]) and a checkpoint as its header plus the ids it appends
// ([Checkpoint.Delta]). A store asks this package what a write means
// ([Change.Plan], [Plan.Decide]) and executes the decision in one
// transaction; the rules themselves never live in an adapter.
//
// The canonical encoding is hand-rolled over encoding/json with unexported
// mirror structs rather than a serialisation library: digests and conflict
// detection depend on the bytes staying identical across releases, so the
// format is owned here and versioned explicitly.
package conversation
