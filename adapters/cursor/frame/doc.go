// Package frame reads and writes the Connect envelope the Cursor client speaks
// on its streaming routes (RunSSE, AgentService/Run): one flag byte, a 32-bit
// big-endian length, then the payload. It also encodes the end-of-stream JSON
// (success or a Connect error with aiserver.v1.ErrorDetails) and normalises
// unary bodies, which the client may send bare or enveloped, plain or gzip.
//
// Place in the hexagon: a helper inside the Cursor inbound adapter; it knows
// bytes and HTTP only, not the agent schema.
//
// Why hand-written: connect-go does this framing internally but exposes none
// of it. Keygate needs the frames themselves: RunSSE must keep a replayable
// log of encoded frames, accept a framed or bare request body, and answer with
// a text/event-stream content type; the HTTP/2 Run route must read frames up
// to the first run_request before it decides where the stream goes.
package frame
