// Package provider implements ports.ModelProvider over HTTP for every
// protocol Keygate speaks, and registers those protocols: Builtin is the one
// list of protocol.Protocol values (adapters/provider/openai: Chat
// Completions, Responses; adapters/provider/anthropic: Messages), which the
// client, model discovery, request-URL derivation (ports.ProviderProtocols)
// and the control API read. Outside the protocol packages no production code
// switches on a protocol kind or names one (app/archspec walks app/ and
// adapters/ for it): what others need to know of a protocol is a field of
// protocol.Protocol, such as its Vendor.
//
// Place in the hexagon: adapter (driven side). It owns what the protocols
// share: one HTTP attempt per call (retries belong to the run engine), custom
// headers with the {{SessionId}} template, extra body parameters, the
// deviations of compatible endpoints (package compat), classification of non-2xx statuses with their retry-after
// headers, a watchdog that turns a stalled stream into a transient error, the
// guarantee that a stream ends with Done or an error, and the per-call record
// sent to ports.CallRecorder (with the credential-free request and raw
// response chunks in detailed mode).
//
// One context covers the wait for headers and every body read: it is the
// request's context, so cancelling it closes the connection.
package provider
