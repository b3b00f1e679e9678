// Package agent is the run layer of the Cursor adapter: it implements
// transport.RunHandler, so each turn a stock Cursor client opens becomes a
// run of the engine (app/run), and the run's events become the server
// messages the client renders (text, thinking, tool cards, execs,
// checkpoints); see docs/cursor-protocol.md, "One turn on the wire".
//
// One turn, in order: resolve the model (a model that is not configured in
// Keygate ends the turn, or goes to Options.Foreign); resolve
// request-context part blobs (pre_fetched_blobs, else KV GET); read the
// conversation's history (or the base of an edited message); compile the
// turn (package compile); start the run; then relay events out and client
// messages in until the run ends. Tool calls go to the client as execs
// (package tools); every checkpoint is projected (package checkpoint) and
// published only once its new blobs are SET and ACKed. The engine's commit
// barrier is released after that, except for the user turn's checkpoint:
// its blobs are SET as soon as the turn is compiled (projected on the
// history read, before the engine commits), its barrier is released at
// once, so the provider request starts while the client stores the
// blobs, and the run's events are held back until the checkpoint is out
// (or skipped), so nothing overtakes it. The final turn is published as
// turn_ended, staged, settled, settled; a turn the user cancels publishes
// its settled checkpoint (the partial text and the committed calls) before
// the stream ends. A resume continues the client's last turn, the card of
// each call it runs again in the place of the one the broken run left open.
//
// A turn reads its conversation once: the history loaded to compile it
// goes to the engine (run.PreparedRun.History), and each commit brings its
// message list back (run.MessagesCommitted.Messages) for the projection.
//
// The turn (session) routes; each part owns its state and has one job:
// wire sends to the client and makes the first send failure sticky (the
// stream is gone: the turn sends nothing more, cancels its run and ends
// promptly); inbox reads the client's messages; publisher owns KV SETs,
// GETs and ACKs and publishes checkpoints; checkpoints holds what they are
// built from; dispatcher runs the tool calls; followUps queues user
// messages that arrive while a run works (and other actions that open
// the next run); background tracks awaits and moves to the background.
// A conversation action that arrives during a run is handled by the turn
// (cancel, follow-up, background) or as package compile says
// (compile.WhileRunning: its message joins the run, it opens the next run,
// or it is moot). The user's "!" command runs on the client before its turn
// is compiled (usershell.go). Blobs the client confirmed are
// remembered per conversation in memory (convMemory), so a blob is SET
// once; after a process restart the first checkpoint re-sends what the
// client's run request did not mention.
//
// Errors: connectError is the one mapping of a turn's failure to the
// Connect error the client sees, and each failure is logged once, where
// the turn ends (a failed run is logged by the engine). Log fields use one
// vocabulary across the run layer and the engine: request_id (the Cursor
// request id), run_id, conversation_id, user_id, model (the Cursor model
// id), call_id (a model's tool call), injection_id.
//
// Place in the hexagon: part of the Cursor inbound adapter. It drives the
// engine through its exported API and reads the conversation store through
// ports; it writes the store only to import a conversation the store lacks
// from the client's checkpoint (a forked chat). Everything else is written
// by the engine.
package agent
