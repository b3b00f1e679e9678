// Package cmdk serves Cursor's inline edits (Cmd-K) and its commit
// messages and branch names on the client's own routes:
// CmdKService/StreamCmdK (a server stream of edit_start, the replacement
// text as edit_stream pieces and edit_end, or chat text),
// CmdKService/StreamTerminalCmdK (the terminal's command), the companions
// the client calls around them (RerankCmdKContext,
// RerankTerminalCmdKContext, GetRelevantChunks, AiService/ReportCmdKFate,
// answered harmlessly), and AiService/WriteGitCommitMessage and
// WriteGitBranchName.
//
// Every route asks the Editor for its feature's model on each request
// (the inline-edit model for CmdKService and ReportCmdKFate, the commit
// model for the Git routes): while it names none, the route is relayed to
// Cursor unchanged (Options.Upstream), exactly as if Keygate did not mount
// it; without an upstream the route answers that the feature is
// unavailable. Bodies are bounded by MaxBody and by the adapter's read
// timeout and shared Inflater. Both Connect codecs are accepted. The wire
// is docs/cursor-protocol.md, "Inline edits (Cmd-K)" and "Commit messages
// and branch names".
//
// Why its own package: these routes share nothing with the Agent's runs or
// Tab's but the framing helpers, and the Editor is a different use case.
//
// Place in the hexagon: part of the Cursor inbound adapter. It reaches the
// use case (app/cmdk) only through Editor, declared here, and speaks
// domain/cmdk's and domain/gitmsg's types to it.
//
// Imports: the standard library, connectrpc.com/connect,
// github.com/google/uuid, go.uber.org/zap, google.golang.org/protobuf,
// adapters/cursor/bidi, adapters/cursor/frame, domain/budget, domain/cmdk,
// domain/gitmsg, domain/secretscan, domain/team and gen/cursor/aiserver/v1.
package cmdk
