// Package compaction holds the rules for shrinking a conversation that no
// longer fits its model's context window: the budget, what may be
// summarised, how the summary request is trimmed, and the layout of the
// compacted checkpoint. Compaction never edits history; it writes a
// replacement (conversation.ReplaceWith) whose layout keeps the latest
// request context and the current turn verbatim, so the new prefix is
// stable from the first call after it.
//
// Place in the hexagon: domain. Imports: the standard library and domain. It
// does no I/O, keeps no clock and carries no struct tags. The run engine
// makes the summary call and applies the results.
package compaction
