// Package toolround holds the rules of a tool round: the calls one model
// cycle asked for, kept in the model's original order, and their results,
// committed one at a time in completion order. Each commit yields the two
// messages a store appends together (the call's assistant part and its
// result), so no checkpoint ever holds a call without its result.
//
// Place in the hexagon: domain. Imports: the standard library and domain. It
// does no I/O and carries no struct tags. The run engine drives a [Round]; a
// store persists it as its plan message (the assistant message of the round,
// in the conversation package's canonical encoding) plus the completion
// order, and rebuilds it with [Rehydrate].
package toolround
