// Package tab serves Cursor Tab, the editor's next-edit suggestions, on the
// Cursor client's own routes: AiService/StreamCpp (a server stream of
// edits, text pieces and a jump), AiService/CppConfig (Tab on, debounces,
// heuristics, and cpp_url naming the origin the request came in on so
// that suggestions come back through the proxy), the companions the client
// calls around them (edit-history uploads, context refresh,
// classification, StreamNextCursorPrediction, CppService/AvailableModels)
// and CppService/RecordCppFate, which reaches the Predictor's RecordFate.
//
// Every route asks the Predictor for the Tab model on each request: while
// it names none, the route is relayed to Cursor unchanged (Options.Upstream),
// exactly as if Keygate did not mount it; without an upstream the routes
// answer that Tab is off. Bodies are bounded by MaxBody (a StreamCpp carries
// the whole current file) and by the adapter's read timeout and shared
// Inflater. Both Connect codecs (binary and JSON) are accepted, as
// connect-go's handlers do. The wire, message by message, is
// docs/cursor-protocol.md, "Cursor Tab".
//
// Why its own package: the Tab routes share nothing with the Agent's runs
// (no transport, no request-id registry) but the framing helpers, and the
// Predictor is a different use case.
//
// Place in the hexagon: part of the Cursor inbound adapter. It reaches the
// Tab use case (app/tab) only through Predictor, declared here, and speaks
// domain/tab's types to it.
//
// Imports: the standard library, connectrpc.com/connect,
// github.com/google/uuid, go.uber.org/zap, google.golang.org/protobuf,
// adapters/cursor/bidi, adapters/cursor/frame, domain/budget, domain/tab,
// domain/team and gen/cursor/aiserver/v1.
package tab
