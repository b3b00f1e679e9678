// Package tab holds the rules of Cursor Tab served on an organisation's own
// model: what a next-edit request says (the file, the cursor, the recent
// edits, the other open files, the lint errors), how it becomes a prompt
// within a byte budget, how a model's answer becomes line edits, which
// suggestions are not worth showing, and when a request can be answered
// from the previous suggestion without a model call.
//
// Two prompt styles: a fill-in model (llm.Request.FillIn) completes the
// text at the cursor, which becomes one edit of the cursor line
// (FillPrompt, FillDecoder); a chat model rewrites a small region around
// the cursor between markers, and the rewrite is diffed against the region
// so the model never counts lines (EditPrompt, EditDecoder). The diff
// algorithm is passed in (LineDiff): the domain imports no library, and
// app/tab gives it a well-kept one. Both decoders send events as soon as
// they are usable, hold back what may still be suppressed, and never turn
// a cut-off answer into a deletion. Edits use "\n" line breaks whatever the
// file's line ending; the client's adapter writes its own.
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O: app/tab asks the model and the Cursor adapter translates its events
// to and from the client's wire messages.
package tab
