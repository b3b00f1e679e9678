// Package provider implements ports.ModelProvider over HTTP for every
// protocol Keygate speaks, dispatching on Endpoint.Kind to the wire adapters
// in adapters/provider/openai (Chat Completions, Responses) and
// adapters/provider/anthropic (Messages).
//
// Place in the hexagon: adapter (driven side). It owns what the protocols
// share: one HTTP attempt per call (retries belong to the run engine), the
// auth header and custom headers with the {{SessionId}} template, extra body
// parameters, classification of non-2xx statuses with their retry-after
// headers, a watchdog that turns a stalled stream into a transient error, the
// guarantee that a stream ends with Done or an error, and the per-call record
// sent to ports.CallRecorder (with the credential-free request and raw
// response chunks in detailed mode).
//
// One context covers the wait for headers and every body read: it is the
// request's context, so cancelling it closes the connection.
package provider
