// Package cursor is the Cursor inbound adapter: it serves the routes a stock
// Cursor client calls for its Agent and assembles them from its
// subpackages:
//
//   - frame: the Connect envelope, end-of-stream JSON and unary bodies;
//   - transport: one transport per request id (ordering, replay, heartbeats,
//     orphan grace, linger) and RunHandler, the plug for the run layer;
//   - bidi: the BidiAppend, RunSSE and HTTP/2 Run routes;
//   - unary: server config, IsConnected, model lists and defaults, stubs;
//   - tab: Cursor Tab (StreamCpp, CppConfig, their companions, CppService),
//     mounted when Options.Tab is set;
//   - cursortest: a client simulator (the Agent's and Tab's) and a scripted
//     RunHandler for specs.
//
// Place in the hexagon: an inbound adapter. The composition root gives it a
// RunHandler and a model Catalog and mounts Routes on Keygate's HTTP server
// (and NewAgentListener serves the HTTP/2 agent route when one is
// configured).
// Given Options.Upstream (a RoundTripper to Cursor) and
// Options.KeygateModel, turns for models Keygate does not serve go to
// Cursor whole and never reach the RunHandler. Options.Trace and
// Options.Admit wrap every turn Keygate serves: a trace per turn, and an
// admission (a budget's run slots) before it runs.
package cursor
