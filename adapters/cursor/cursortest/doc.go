// Package cursortest simulates a Cursor client over real HTTP and provides a
// scripted RunHandler, so that specs can drive the Cursor adapter end to end
// without a Cursor build.
//
// The Client sends BidiAppends (hex data, explicit or automatic seqnos,
// so appends can be sent out of order, duplicated or ahead of the run
// request), reads RunSSE and HTTP/2 Run streams frame by frame, answers
// KV GET/SET the way the client does (a blob store shared by the clients
// of one window, ACK on SET) and keeps the latest checkpoint the server
// published, to send it back with the next run request or a resume
// (Checkpoint, WithRequestID; Rebind after a server restart; AppendTo for
// appends that reach another replica than the RunSSE).
//
// A Workspace plugged into Client.OnMessage executes exec requests against
// a temporary directory as the client does (read, write, delete, ls, grep,
// glob, shell with streamed output; result then stream_close, or the
// reverse order with CloseFirst), runs a shell command without asking only
// when its exec's parse names allowlisted executables (AutoRun, Asked),
// honours aborts, can delay or hold execs
// so parallel calls complete out of order or a round stays open across a
// restart, and answers MCP calls, interaction queries and subagent execs
// through hooks (Approve says yes to every query); Client.RunSubagent runs
// a subagent as the client does, as a child run with the parent headers.
// It also runs background shells (spawn, stdin, their end reported as a
// BackgroundTaskCompletionAction with NotifyBackground), moves a running
// shell or subagent to the background when the server asks, answers
// diagnostics, subagent awaits and MCP resources and state, and returns a
// file that is not text as bytes. actions.go builds every conversation
// action the client sends. Terminal, EditStream and Thinking render what the
// client shows besides text: the live terminal of a running shell
// (shell_output_delta), a file's content while the model writes it
// (edit_tool_call_delta) and the thinking blocks, Keygate's retry statuses
// among them (thinking_delta, thinking_completed). Client.Chat reads the
// turns of a checkpoint from the client's blob store, as a reloaded chat
// shows them (each turn's user message and steps; Done tells a completed
// tool card).
//
// TabClient simulates the editor's Tab on either Connect codec: it keeps a
// file and a cursor, types, asks for a suggestion at a pause (StreamCpp),
// aborts the open stream when it types again, applies a suggestion's edits
// (ApplyEdits, until domain/tab has its own Apply) and reports fates.
//
// Place in the hexagon: test support for the Cursor inbound adapter; only
// specs import it.
package cursortest
