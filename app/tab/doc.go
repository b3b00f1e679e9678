// Package tab is the use case of Cursor Tab on the organisation's own
// model: a next-edit request becomes one routed model call, with a
// fill-in prompt for a fill-in protocol and an edit prompt for a chat
// model, and its answer streams back as line edits as soon as they are
// usable. A request that only types the previous suggestion's next
// characters is answered from it without a call, and a suggestion the
// user just rejected is not offered again.
//
// It is shaped around the Cursor adapter, which calls Predict per
// StreamCpp request and cancels its context when the client aborts, and
// around the ModelProvider chain (router, budgets, call records), which
// it reaches through one ModelCall of kind tab per prediction. What it
// remembers (typing-through offers, predictions awaiting a fate, rejected
// edits) is per user and file, bounded in entries and bytes.
//
// Place in the hexagon: use case. Imports: the standard library, domain,
// ports, github.com/pmezard/go-difflib (the line diff of a chat model's
// rewrite) and go.uber.org/zap.
package tab
