// Package bidi serves the three HTTP routes that carry an agent run:
// BidiAppend (the uplink over HTTP/1.1, unary), RunSSE (the downlink over
// HTTP/1.1, a Connect server stream) and AgentService/Run (both directions
// on one HTTP/2 stream). All three feed one transport.Registry, which also
// routes each turn: a turn whose model is not a Keygate model goes to
// Cursor whole (upstream.go). Its BidiAppends are re-sent unchanged through
// a Connect client, its RunSSE is re-sent with the original body, and an
// HTTP/2 Run is relayed after replaying the bytes read to find its model;
// Cursor's frames are passed on one by one and a failure ends the stream
// with a Connect error naming the cause.
//
// Several Keygate processes on one database (replicas.go): a run belongs
// to the process holding its run key's lease (taken by its first RunSSE,
// kept while its transport lives), a BidiAppend that reaches another
// process is forwarded to it through a ports.AppendRelay, keyed by caller
// and request id, carrying the caller's identity and headers, and a RunSSE
// that reaches another process is served from the output the owner
// publishes. The owner applies forwarded appends in the order the relay
// delivers them.
//
// Place in the hexagon: the HTTP edge of the Cursor inbound adapter. It
// decodes and encodes; ordering, replay and runs live in package transport.
//
// BidiAppend uses the generated connect-go handler. RunSSE and Run are
// written on package frame instead of connect-go's stream handlers, because
// the client expects what connect-go does not do: RunSSE answers with
// Content-Type text/event-stream and a flush per frame, accepts a framed or
// bare request, and replays a log of already-encoded frames; Run must read
// frames up to the first run_request before the stream is routed.
package bidi
