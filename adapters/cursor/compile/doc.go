// Package compile turns a Cursor client's turn (an AgentRunRequest and the
// action that opened the turn) into the run engine's input, an
// app/run.PreparedRun: the mode, the model settings, the system prompt and
// tool catalog of the mode, the request-context message and the runtime
// message (domain/turn decides which of them history needs), and the run's
// action (start, resume or compact).
//
// Place in the hexagon: part of the Cursor inbound adapter. It is pure: the
// run layer (package agent) resolves the model, reads history and fetches
// request-context part blobs, then calls Compile. Each conversation action
// that opens a turn is a table entry in its own file (action_*.go), listed
// once in actions.go. The prompt texts under prompts/ are the project's own
// and are embedded at build time.
package compile
