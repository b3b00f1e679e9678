package cmdk

import (
	"context"
	"net/http"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/frame"
	"keygate/domain/cmdk"
	"keygate/domain/gitmsg"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// Editor is the use case of inline edits and Git messages as the adapter
// needs it.
type Editor interface {
	// EditModel and CommitModel return the feature's model for the caller
	// on ctx; "" when Keygate does not serve it (the routes then go to
	// Cursor as before).
	EditModel(ctx context.Context) (string, error)
	CommitModel(ctx context.Context) (string, error)
	// Edit streams an inline edit's replacement lines (or, in chat mode,
	// its text) to emit; cancelling ctx stops it at once.
	Edit(ctx context.Context, in cmdk.Input, emit func(string) error) error
	// Terminal, CommitMessage and BranchName answer whole.
	Terminal(ctx context.Context, in cmdk.TerminalInput) (string, error)
	CommitMessage(ctx context.Context, in gitmsg.CommitInput) (string, error)
	BranchName(ctx context.Context, in gitmsg.BranchInput) (string, error)
}

// MaxBody bounds the body of every route, as sent and once inflated. An
// inline edit carries the selection, the lines around it and the context
// the user attached (whole files at times); a commit message carries the
// staged diff, which for a generated or vendored file runs to megabytes.
// 8 MiB admits them while a gzip bomb still inflates to little (the shared
// Inflater runs two at a time); the prompts keep only their budget of it.
const MaxBody = 8 << 20

// Options configure the routes.
type Options struct {
	// Upstream reaches Cursor's own service (the upstream.Forwarder). While
	// the Editor names no model for a feature, its routes are relayed there
	// unchanged. nil: they answer that the feature is unavailable.
	Upstream http.RoundTripper
	// Limits bound each request body; MaxSize <= 0 or above MaxBody means
	// MaxBody. The Inflater should be the adapter's shared one.
	Limits frame.Limits
}

// Routes returns the routes keyed by exact path, for the Cursor adapter's
// route table. Each request first asks e for its feature's model, so the
// setting may change at run time.
func Routes(e Editor, opts Options, log *zap.Logger) map[string]http.Handler {
	if opts.Limits.MaxSize <= 0 || opts.Limits.MaxSize > MaxBody {
		opts.Limits.MaxSize = MaxBody
	}
	s := &service{e: e, log: log}
	var pass http.Handler
	if opts.Upstream != nil {
		pass = bidi.Relay(opts.Upstream, log)
	}
	edit := decider{model: e.EditModel, pass: pass, log: log}
	commit := decider{model: e.CommitModel, pass: pass, log: log}
	connectOpts := []connect.HandlerOption{connect.WithReadMaxBytes(int(opts.Limits.MaxSize))}
	unary := func(d decider, h http.Handler) http.Handler { return d.wrap(frame.NormalizeUnary(h, opts.Limits)) }
	stream := func(d decider, h http.Handler) http.Handler { return d.wrap(frame.NormalizeStream(h, opts.Limits)) }

	return map[string]http.Handler{
		aiserverv1connect.CmdKServiceStreamCmdKProcedure: stream(edit, connect.NewServerStreamHandler(
			aiserverv1connect.CmdKServiceStreamCmdKProcedure, s.StreamCmdK, connectOpts...)),
		aiserverv1connect.CmdKServiceStreamTerminalCmdKProcedure: stream(edit, connect.NewServerStreamHandler(
			aiserverv1connect.CmdKServiceStreamTerminalCmdKProcedure, s.StreamTerminalCmdK, connectOpts...)),
		aiserverv1connect.CmdKServiceGetRelevantChunksProcedure: stream(edit, connect.NewServerStreamHandler(
			aiserverv1connect.CmdKServiceGetRelevantChunksProcedure, s.GetRelevantChunks, connectOpts...)),
		aiserverv1connect.CmdKServiceRerankCmdKContextProcedure: unary(edit, connect.NewUnaryHandler(
			aiserverv1connect.CmdKServiceRerankCmdKContextProcedure, s.RerankCmdKContext, connectOpts...)),
		aiserverv1connect.CmdKServiceRerankTerminalCmdKContextProcedure: unary(edit, connect.NewUnaryHandler(
			aiserverv1connect.CmdKServiceRerankTerminalCmdKContextProcedure, s.RerankTerminalCmdKContext, connectOpts...)),
		aiserverv1connect.AiServiceReportCmdKFateProcedure: unary(edit, connect.NewUnaryHandler(
			aiserverv1connect.AiServiceReportCmdKFateProcedure, s.ReportCmdKFate, connectOpts...)),
		aiserverv1connect.AiServiceWriteGitCommitMessageProcedure: unary(commit, connect.NewUnaryHandler(
			aiserverv1connect.AiServiceWriteGitCommitMessageProcedure, s.WriteGitCommitMessage, connectOpts...)),
		aiserverv1connect.AiServiceWriteGitBranchNameProcedure: unary(commit, connect.NewUnaryHandler(
			aiserverv1connect.AiServiceWriteGitBranchNameProcedure, s.WriteGitBranchName, connectOpts...)),
	}
}

// modelKey carries the model decider found for the request to the local
// handlers ("" when the feature is off and there is no Cursor to relay to).
type modelKey struct{}

func modelOf(ctx context.Context) string {
	m, _ := ctx.Value(modelKey{}).(string)
	return m
}

// decider sends a request to Cursor while Keygate serves no model for the
// route's feature, and to the local handler otherwise.
type decider struct {
	model func(context.Context) (string, error)
	pass  http.Handler // nil: no upstream
	log   *zap.Logger
}

func (d decider) wrap(local http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		model, err := d.model(r.Context())
		switch {
		case err != nil:
			// Never relay to Cursor on a failure: the setting may be to keep
			// the code here. The local handler answers unavailable.
			d.log.Warn("model unavailable; not relaying", zap.String("path", r.URL.Path), zap.Error(err))
			model = ""
		case model == "" && d.pass != nil:
			d.pass.ServeHTTP(w, r)
			return
		}
		local.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), modelKey{}, model)))
	})
}
