// Package wire writes provider request bodies as JSON, byte for byte under
// Keygate's control.
//
// Place in the hexagon: adapter support, shared by the provider adapters under
// adapters/provider. It is hand-written instead of marshalling structs with
// encoding/json for two reasons. First, prompt caches match on the exact
// prefix of what is sent, so one llm.Request must always give the same bytes
// and turn N's history must be a byte prefix of turn N+1's: an append-style
// writer makes field order, omission rules and escaping explicit in the code
// that builds each body. Second, a 200-message history is written on every
// model cycle; appending into one reused buffer costs a fraction of building
// and reflecting over intermediate structs.
//
// Strings are escaped as encoding/json escapes them with HTML escaping turned
// off (prompts are full of '<' and '&'): control characters, quote, backslash,
// U+2028/U+2029 and invalid UTF-8 (as U+FFFD). Raw JSON passed through (tool
// schemas, tool arguments, replay values, extra parameters) is compacted,
// which keeps key order and so stays deterministic.
package wire
