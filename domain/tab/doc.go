// Package tab holds the rules of Cursor Tab served on an organisation's own
// model: what a next-edit request says (the file, the cursor, the recent
// edits, the other open files, the lint errors), how it becomes a prompt
// within a byte budget, how a model's answer becomes line edits, which
// suggestions are not worth showing, and when a request can be answered
// from the previous suggestion without a model call.
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O: app/tab asks the model and the Cursor adapter translates its events
// to and from the client's wire messages.
package tab
