package tab

import (
	"context"
	"net/http"
	"net/url"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/frame"
	"keygate/domain/tab"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// Predictor is the Tab use case as the adapter needs it.
type Predictor interface {
	// Model returns the Tab model id; "" when Keygate serves no Tab (then the routes go to Cursor as before).
	Model(ctx context.Context) (string, error)
	// Predict streams the suggestion for in to emit, event by event; cancelling ctx stops it at once.
	Predict(ctx context.Context, in tab.Input, emit func(tab.Event) error) error
	// RecordFate stores what the user did with the suggestion of requestID.
	RecordFate(ctx context.Context, requestID string, f tab.Fate) error
}

// MaxBody bounds the body of every Tab route, as sent and once inflated. A
// StreamCpp carries the whole current file, the recent diffs and what is
// visible of the other open files; source files of a few MiB exist
// (generated code, bundles) and the client sends them whole, so the Agent's
// 1 MiB unary bound would turn Tab off in them. 8 MiB admits such a file
// with its context while a gzip bomb still inflates to little (the shared
// Inflater runs two at a time).
const MaxBody = 8 << 20

// Options configure the Tab routes.
type Options struct {
	// Upstream reaches Cursor's own service (the upstream.Forwarder, which
	// honours bidi.HeaderUpstreamURL). While the Predictor names no model,
	// every Tab route is relayed there unchanged. nil: the routes answer
	// locally that Tab is off.
	Upstream http.RoundTripper
	// Limits bound each request body; MaxSize <= 0 or above MaxBody means
	// MaxBody. The Inflater should be the adapter's shared one.
	Limits frame.Limits
}

// compressMinBytes is the smallest message the Tab routes compress.
const compressMinBytes = 4 << 10

// Routes returns the Tab routes keyed by exact path, for the Cursor
// adapter's route table. Each request first asks p for its model, so the
// setting may change at run time.
func Routes(p Predictor, opts Options, log *zap.Logger) map[string]http.Handler {
	if opts.Limits.MaxSize <= 0 || opts.Limits.MaxSize > MaxBody {
		opts.Limits.MaxSize = MaxBody
	}
	s := &service{p: p, log: log}
	d := decider{p: p, log: log}
	if opts.Upstream != nil {
		d.pass = bidi.Relay(opts.Upstream, log)
	}
	// A suggestion's messages are a few dozen bytes each and the client
	// waits for every one: gzip would cost more CPU per message (a
	// compressor reset is the largest cost of a Tab request in a profile)
	// than it saves on the wire, so only large answers are compressed.
	connectOpts := []connect.HandlerOption{connect.WithReadMaxBytes(int(opts.Limits.MaxSize)), connect.WithCompressMinBytes(compressMinBytes)}
	unaryRoute := func(h http.Handler) http.Handler { return d.wrap(frame.NormalizeUnary(h, opts.Limits)) }
	streamRoute := func(h http.Handler) http.Handler { return d.wrap(frame.NormalizeStream(h, opts.Limits)) }

	routes := map[string]http.Handler{}
	add := func(path string, h http.Handler, stream bool) {
		if stream {
			routes[path] = streamRoute(h)
		} else {
			routes[path] = unaryRoute(h)
		}
	}
	add(aiserverv1connect.AiServiceStreamCppProcedure, connect.NewServerStreamHandler(
		aiserverv1connect.AiServiceStreamCppProcedure, s.StreamCpp, connectOpts...), true)
	add(aiserverv1connect.AiServiceStreamNextCursorPredictionProcedure, connect.NewServerStreamHandler(
		aiserverv1connect.AiServiceStreamNextCursorPredictionProcedure, s.StreamNextCursorPrediction, connectOpts...), true)
	add(aiserverv1connect.AiServiceCppConfigProcedure, withOrigin(connect.NewUnaryHandler(
		aiserverv1connect.AiServiceCppConfigProcedure, s.CppConfig, connectOpts...)), false)
	add(aiserverv1connect.AiServiceCppEditHistoryStatusProcedure, connect.NewUnaryHandler(
		aiserverv1connect.AiServiceCppEditHistoryStatusProcedure, s.CppEditHistoryStatus, connectOpts...), false)
	add(aiserverv1connect.AiServiceCppAppendProcedure, connect.NewUnaryHandler(
		aiserverv1connect.AiServiceCppAppendProcedure, s.CppAppend, connectOpts...), false)
	add(aiserverv1connect.AiServiceCppEditHistoryAppendProcedure, connect.NewUnaryHandler(
		aiserverv1connect.AiServiceCppEditHistoryAppendProcedure, s.CppEditHistoryAppend, connectOpts...), false)
	add(aiserverv1connect.AiServiceRefreshTabContextProcedure, connect.NewUnaryHandler(
		aiserverv1connect.AiServiceRefreshTabContextProcedure, s.RefreshTabContext, connectOpts...), false)
	add(aiserverv1connect.AiServiceGetCppEditClassificationProcedure, connect.NewUnaryHandler(
		aiserverv1connect.AiServiceGetCppEditClassificationProcedure, s.GetCppEditClassification, connectOpts...), false)
	add(aiserverv1connect.CppServiceAvailableModelsProcedure, connect.NewUnaryHandler(
		aiserverv1connect.CppServiceAvailableModelsProcedure, s.AvailableModels, connectOpts...), false)
	add(aiserverv1connect.CppServiceRecordCppFateProcedure, connect.NewUnaryHandler(
		aiserverv1connect.CppServiceRecordCppFateProcedure, s.RecordCppFate, connectOpts...), false)
	return routes
}

// modelKey carries the model decider found for the request to the local
// handlers, so that one request asks the Predictor once.
type modelKey struct{}

// modelOf is the Tab model of the request ("" when Tab is off locally).
func modelOf(ctx context.Context) string {
	m, _ := ctx.Value(modelKey{}).(string)
	return m
}

// decider sends a request to Cursor while Keygate serves no Tab, and to
// the local handler otherwise.
type decider struct {
	p    Predictor
	pass http.Handler // nil: no upstream
	log  *zap.Logger
}

func (d decider) wrap(local http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		model, err := d.p.Model(r.Context())
		switch {
		case err != nil:
			// Never relay to Cursor on a failure: the setting may be to keep
			// the code here. The local handlers answer as if Tab were off.
			d.log.Warn("tab model unavailable; answering without a suggestion", zap.String("path", r.URL.Path), zap.Error(err))
			model = ""
		case model == "" && d.pass != nil:
			d.pass.ServeHTTP(w, r)
			return
		}
		local.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), modelKey{}, model)))
	})
}

// originKey carries the origin the client addressed (scheme and host) to
// CppConfig, which names it as cpp_url.
type originKey struct{}

// withOrigin records the request's origin: the URL the proxy rebuilt from
// the intercepted TLS session when there is one (so the client's next
// StreamCpp comes back through the proxy), else the request's own host.
func withOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := ""
		if u, err := url.Parse(r.Header.Get(bidi.HeaderUpstreamURL)); err == nil && u.Scheme != "" && u.Host != "" {
			origin = u.Scheme + "://" + u.Host
		} else if r.Host != "" {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			origin = scheme + "://" + r.Host
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), originKey{}, origin)))
	})
}
