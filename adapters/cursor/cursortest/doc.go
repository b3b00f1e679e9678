// Package cursortest simulates a Cursor client over real HTTP and provides a
// scripted RunHandler, so that specs can drive the Cursor adapter end to end
// without a Cursor build.
//
// The Client sends BidiAppends (hex data, explicit or automatic seqnos,
// so appends can be sent out of order, duplicated or ahead of the run
// request), reads RunSSE and HTTP/2 Run streams frame by frame, and answers
// KV GET/SET the way the client does (a per-client blob store, ACK on SET).
// Exec execution against a workspace and resume after restart are not
// simulated yet; Client.OnMessage, which sees every other server message
// with a sender for the reply, is where they plug in.
//
// Place in the hexagon: test support for the Cursor inbound adapter; only
// specs import it.
package cursortest
