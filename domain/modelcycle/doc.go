// Package modelcycle holds the rules of one model cycle: the grammar a
// provider's event stream must follow, how tool-call arguments and names are
// normalised, the finish-reason checks, and which failures the run engine
// retries.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/llm. It does no I/O, keeps no clock and carries no struct tags. The
// run engine feeds every event of a stream to a [Cycle] and asks [Retryable]
// what to do with a failure.
package modelcycle
