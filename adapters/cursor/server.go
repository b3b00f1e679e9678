package cursor

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/cmdk"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/tab"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/cursor/unary"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
	"keygate/ports"
)

// Options configure the Cursor adapter.
type Options struct {
	// Transport holds the run transport's timings and limits.
	Transport transport.Config
	// MaxFrameSize bounds a BidiAppend body and every frame of an HTTP/2
	// Run, as sent and once inflated (frame.DefaultMaxSize when <= 0). The
	// other routes take far less: see MaxUnaryBody and bidi.MaxRunSSEBody.
	MaxFrameSize int64
	// Inflating is how many gzip bodies and frames are inflated at once
	// across every route (frame.DefaultInflating when <= 0).
	Inflating int
	// BodyReadTimeout bounds reading one request body on every route but
	// the HTTP/2 Run, whose uplink lasts the whole run (when <= 0:
	// frame.DefaultReadTimeout, and bidi.RunSSEReadTimeout for RunSSE's
	// tiny body). The proxy serves long response streams on the same
	// connections, so the bound is the handler's own, set on the
	// connection for the body only.
	BodyReadTimeout time.Duration
	// Unary configures server config and model lists.
	Unary unary.Options
	// Foreign receives BidiAppends that are not agent messages; nil sends
	// them to Upstream (with the client's headers), or refuses them when
	// there is no Upstream either.
	Foreign bidi.ForeignAppends
	// Upstream reaches Cursor's own service (the upstream.Forwarder): it
	// must send a request to the URL in X-Server-Upstream-URL, or else to
	// the request's URL. With KeygateModel it routes every turn whose
	// model is not a Keygate model to Cursor whole: its BidiAppends, its
	// RunSSE, or its HTTP/2 Run. Either nil: every turn is served locally
	// (the run layer ends an unknown model's turn with NotFound).
	Upstream http.RoundTripper
	// KeygateModel reports whether Keygate serves a model id.
	KeygateModel transport.KeygateModel
	// Relay carries BidiAppends between Keygate processes that share one
	// database behind a round-robin load balancer: a run belongs to the
	// process holding its RunSSE, and an append that reaches another
	// process is forwarded to it (bidi.Replicas). nil: a single process,
	// every append applied where it arrives.
	Relay ports.AppendRelay
	// FollowPoll is how often a RunSSE served from another replica's
	// output reads it without a wake from the relay; zero: bidi.FollowPoll.
	FollowPoll time.Duration
	// Trace, when set, makes each turn Keygate serves the root span of a
	// trace, around its admission.
	Trace TraceTurn
	// Admit, when set, decides whether a turn Keygate serves may run (a
	// budget's concurrent-run slots).
	Admit AdmitTurn
	// Notice, when set with Admit, is asked once a turn is admitted for a
	// line the user sees at its start (a budget's warning).
	Notice TurnNotice
	// Tab, when set, serves Cursor Tab (StreamCpp, CppConfig, their
	// companions and CppService): locally while it names a model, relayed
	// to Upstream unchanged while it names none (adapters/cursor/tab). nil:
	// the Tab routes are not mounted and go to Cursor as every unmounted
	// route does.
	Tab tab.Predictor
	// CmdK, when set, serves inline edits (CmdKService) and commit
	// messages and branch names (AiService WriteGitCommitMessage,
	// WriteGitBranchName): locally while it names the feature's model,
	// relayed to Upstream unchanged while it names none
	// (adapters/cursor/cmdk). nil: the routes go to Cursor as before.
	CmdK cmdk.Editor
}

// MaxUnaryBody bounds the body of the unary routes other than BidiAppend
// (model lists, server config, conversation metadata): their requests are a
// few fields, so 1 MiB is generous and keeps a gzip bomb there small.
const MaxUnaryBody = 1 << 20

// compressMinBytes is the smallest answer the agent's unary routes and
// BidiAppend compress, even for a client that accepts gzip.
const compressMinBytes = 4 << 10

// Server holds the adapter's routes and its transport registry.
type Server struct {
	reg      *transport.Registry
	replicas *bidi.Replicas
	routes   map[string]http.Handler
	agent    map[string]http.Handler
}

// New builds the adapter around the run layer's handler.
func New(handler transport.RunHandler, opts Options, log *zap.Logger) *Server {
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = frame.DefaultMaxSize
	}
	// Tab and CmdK relay to Cursor with Upstream alone; the turns' routing below
	// needs KeygateModel too.
	tabUpstream := opts.Upstream
	var keygate transport.KeygateModel
	if opts.Upstream != nil && opts.KeygateModel != nil {
		keygate = opts.KeygateModel
	} else {
		opts.Upstream = nil
	}
	if opts.Admit != nil {
		handler = admittedTurns{next: handler, admit: opts.Admit, notice: opts.Notice}
	}
	if opts.Trace != nil {
		handler = tracedTurns{next: handler, trace: opts.Trace}
	}
	reg := transport.NewRegistry(handler, keygate, opts.Transport, log.Named("transport"))
	up := bidi.NewUpstream(opts.Upstream, log.Named("upstream"))
	replicas := bidi.NewReplicas(opts.Relay, reg, up, opts.MaxFrameSize, opts.FollowPoll, log.Named("replicas"))
	svc := unary.New(opts.Unary, log.Named("unary"))
	s := &Server{reg: reg, replicas: replicas, routes: map[string]http.Handler{}, agent: map[string]http.Handler{}}

	// One Inflater for every route, so that its cap holds across them.
	inflater := frame.NewInflater(opts.Inflating)
	appendLimits := frame.Limits{MaxSize: opts.MaxFrameSize, ReadTimeout: opts.BodyReadTimeout, Inflater: inflater}
	unaryLimits := frame.Limits{MaxSize: min(MaxUnaryBody, opts.MaxFrameSize), ReadTimeout: opts.BodyReadTimeout, Inflater: inflater}
	// A gzip writer's reset costs more CPU than a small answer saves on
	// the wire (BidiAppend's empty answer, a turn's largest count of
	// messages, was about 3% of a short turn's CPU in a profile), and each
	// takes a compressor of hundreds of KiB from the pool: only large
	// answers are compressed.
	small := connect.WithCompressMinBytes(compressMinBytes)
	connectOpts := []connect.HandlerOption{connect.WithReadMaxBytes(int(unaryLimits.MaxSize)), small}
	unaryRoute := func(h http.Handler) http.Handler { return frame.NormalizeUnary(h, unaryLimits) }

	_, appends := aiserverv1connect.NewBidiServiceHandler(bidi.NewAppends(reg, opts.Foreign, up, replicas, log.Named("bidi")),
		connect.WithReadMaxBytes(int(opts.MaxFrameSize)), small)
	s.routes[aiserverv1connect.BidiServiceBidiAppendProcedure] = frame.NormalizeUnary(appends, appendLimits)
	s.routes[agentv1connect.AgentServiceRunSSEProcedure] = bidi.NewRunSSE(reg, up, replicas, frame.Limits{ReadTimeout: opts.BodyReadTimeout, Inflater: inflater}, log.Named("runsse"))
	run := bidi.NewRun(reg, up, appendLimits, log.Named("run"))
	s.routes[agentv1connect.AgentServiceRunProcedure] = run
	s.agent[agentv1connect.AgentServiceRunProcedure] = run

	// Only the listed procedures are mounted, so that every other method of
	// these services stays free for the upstream pass-through. ServerTime is
	// implemented (the interface requires it) but left to Cursor.
	_, ai := aiserverv1connect.NewAiServiceHandler(svc, connectOpts...)
	for _, p := range []string{
		aiserverv1connect.AiServiceGetServerConfigProcedure,
		aiserverv1connect.AiServiceAvailableModelsProcedure,
		aiserverv1connect.AiServiceGetUsableModelsProcedure,
		aiserverv1connect.AiServiceGetDefaultModelProcedure,
		aiserverv1connect.AiServiceGetDefaultModelNudgeDataProcedure,
		aiserverv1connect.AiServiceGetDefaultModelForCliProcedure,
	} {
		s.routes[p] = unaryRoute(ai)
	}
	_, cfg := aiserverv1connect.NewServerConfigServiceHandler(svc, connectOpts...)
	s.routes[aiserverv1connect.ServerConfigServiceGetServerConfigProcedure] = unaryRoute(cfg)
	_, network := aiserverv1connect.NewNetworkServiceHandler(svc, connectOpts...)
	s.routes[aiserverv1connect.NetworkServiceIsConnectedProcedure] = unaryRoute(network)

	agent := svc.Agent()
	s.routes[agentv1connect.AgentServiceGetUsableModelsProcedure] = unaryRoute(connect.NewUnaryHandler(
		agentv1connect.AgentServiceGetUsableModelsProcedure, agent.GetUsableModels, connectOpts...))
	s.routes[agentv1connect.AgentServiceGetDefaultModelForCliProcedure] = unaryRoute(connect.NewUnaryHandler(
		agentv1connect.AgentServiceGetDefaultModelForCliProcedure, agent.GetDefaultModelForCli, connectOpts...))
	s.routes[agentv1connect.AgentServiceUpdateConversationMetadataProcedure] = unaryRoute(connect.NewUnaryHandler(
		agentv1connect.AgentServiceUpdateConversationMetadataProcedure, agent.UpdateConversationMetadata, connectOpts...))

	for _, p := range []string{
		agentv1connect.AgentServiceGetAllowedModelIntentsProcedure,
		agentv1connect.AgentServiceGetNewChatNudgeLegacyModelPickerProcedure,
		agentv1connect.AgentServiceGetNewChatNudgeParameterizedModelPickerProcedure,
	} {
		s.routes[p] = unaryRoute(agentRoute(p, agent, connectOpts))
	}
	if opts.Unary.Knowledge != nil {
		// Memories are kept per user by Keygate; without a store they stay
		// Cursor's.
		for _, p := range []string{
			aiserverv1connect.AiServiceKnowledgeBaseAddProcedure,
			aiserverv1connect.AiServiceKnowledgeBaseListProcedure,
			aiserverv1connect.AiServiceKnowledgeBaseUpdateProcedure,
			aiserverv1connect.AiServiceKnowledgeBaseRemoveProcedure,
		} {
			s.routes[p] = unaryRoute(ai)
		}
	}
	for path, status := range unary.Stubs {
		s.routes[path] = unary.Stub(status)
	}
	if opts.Tab != nil {
		tabLimits := frame.Limits{MaxSize: min(tab.MaxBody, opts.MaxFrameSize), ReadTimeout: opts.BodyReadTimeout, Inflater: inflater}
		for path, h := range tab.Routes(opts.Tab, tab.Options{Upstream: tabUpstream, Limits: tabLimits}, log.Named("tab")) {
			s.routes[path] = h
		}
	}
	if opts.CmdK != nil {
		cmdkLimits := frame.Limits{MaxSize: min(cmdk.MaxBody, opts.MaxFrameSize), ReadTimeout: opts.BodyReadTimeout, Inflater: inflater}
		for path, h := range cmdk.Routes(opts.CmdK, cmdk.Options{Upstream: tabUpstream, Limits: cmdkLimits}, log.Named("cmdk")) {
			s.routes[path] = h
		}
	}
	return s
}

// agentRoute is the handler of one of the CLI's unary agent.v1 routes.
func agentRoute(procedure string, a *unary.Agent, opts []connect.HandlerOption) http.Handler {
	switch procedure {
	case agentv1connect.AgentServiceGetAllowedModelIntentsProcedure:
		return connect.NewUnaryHandler(procedure, a.GetAllowedModelIntents, opts...)
	case agentv1connect.AgentServiceGetNewChatNudgeLegacyModelPickerProcedure:
		return connect.NewUnaryHandler(procedure, a.GetNewChatNudgeLegacyModelPicker, opts...)
	default:
		return connect.NewUnaryHandler(procedure, a.GetNewChatNudgeParameterizedModelPicker, opts...)
	}
}

// Routes are the paths Keygate answers on its main (HTTP/1.1) listener,
// keyed by exact path for http.ServeMux.
func (s *Server) Routes() map[string]http.Handler { return s.routes }

// Stats is what the transport registry holds now (transports, held
// client bytes, the bytes of the output logs kept for replays), for
// diagnostics and specs.
func (s *Server) Stats() transport.Stats { return s.reg.Stats() }

// Drain prepares a shutdown: no new turn starts here (an opening append
// or a RunSSE for a request id this replica does not hold is answered
// unavailable, so the client goes to another replica), lingering streams
// end, and running turns finish. It returns once they all have, or with
// ctx's error; Close then hands the rest over.
func (s *Server) Drain(ctx context.Context) error {
	if s.replicas != nil {
		s.replicas.Drain()
	}
	return s.reg.Drain(ctx)
}

// Close cancels the live runs and waits for their streams to end, or for
// ctx, then releases the request ids this replica holds, so that another
// replica takes them and resumes their runs from the store.
func (s *Server) Close(ctx context.Context) error {
	err := s.reg.Close(ctx)
	if s.replicas != nil {
		s.replicas.Close()
	}
	return err
}

// NewAgentListener returns an HTTP/2-only server for the agent route
// (AgentService/Run, advertised as agent_url_config.agentn_url). With a TLS
// config it serves h2 over TLS (the config should offer ALPN "h2"); with nil
// it serves cleartext h2c, for tests and TLS-terminating fronts.
func NewAgentListener(s *Server, tlsConfig *tls.Config) *http.Server {
	mux := http.NewServeMux()
	for p, h := range s.agent {
		mux.Handle(p, h)
	}
	var protocols http.Protocols
	if tlsConfig == nil {
		protocols.SetUnencryptedHTTP2(true)
	} else {
		protocols.SetHTTP2(true)
	}
	// No read or write timeout: a Run's uplink and downlink both stay open
	// for the whole run. A connection without a stream is closed when idle.
	return &http.Server{
		Handler:           mux,
		TLSConfig:         tlsConfig,
		Protocols:         &protocols,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}
