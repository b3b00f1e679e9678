// Package callrecord is the value type of one provider attempt's record: who
// asked (run, conversation, cycle index), what was asked of which model, how
// the attempt went (status, finish, HTTP status, error class), when each
// milestone happened, and the authoritative usage the provider reported.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/llm. It does no I/O. Provider adapters fill a [Record] as an
// attempt progresses and hand it to the call-recorder port; stores persist
// it and the console reads it back. The rules that keep a record consistent
// (finish only from running, milestones measured from the request start)
// live here so every store applies the same ones.
package callrecord
