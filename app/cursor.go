package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/ca"
	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/cursor/unary"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/egress"
	"keygate/adapters/metrics"
	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/adapters/upstream"
	"keygate/app/cloudledger"
	appcmdk "keygate/app/cmdk"
	"keygate/app/company"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/app/memories"
	"keygate/app/run"
	apptab "keygate/app/tab"
	"keygate/app/teams"
	"keygate/domain/destination"
	"keygate/ports"
)

// CursorRoutes are the routes of the Cursor protocol adapter (RunSSE,
// BidiAppend, model lists, server config). The proxy serves them for
// intercepted *.cursor.sh requests.
type CursorRoutes map[string]http.Handler

// Serves reports whether path is one of the mounted routes.
func (r CursorRoutes) Serves(path string) bool {
	_, ok := r[path]
	return ok
}

// NewCursorStores are the stores of the Cursor path, each kept to the
// caller on the turn (company.CursorStores). The run layer and the engine
// get these and no others, so none of them can be handed a raw store. The
// conversation and run stores' calls are spans of the turn they serve.
func NewCursorStores(store *relstore.Store, tenancy *company.Tenancy, tr *tracing.Tracing) company.CursorStores {
	st := tenancy.CursorStores(store.Stores())
	st.Conversations, st.Runs = tr.Conversations(st.Conversations), tr.Runs(st.Runs)
	return st
}

// NewEngine builds the run engine over the Cursor path's stores and the
// provider client, retrying a failing provider for at most the configured
// wait. Runs are counted and tool rounds traced as spans of the turn whose
// run stores them. The cleanup stops every run still going (each ends
// Cancelled).
func NewEngine(cfg config.Config, stores company.CursorStores, mp ports.ModelProvider, m *metrics.Metrics, tr *tracing.Tracing, logger *zap.Logger) (*run.Engine, func(), error) {
	e, err := run.New(run.Options{
		Limits:        retryLimits(cfg.RetryMaxWait),
		Conversations: stores.Conversations,
		Runs:          m.Runs(stores.Runs),
		ToolRounds:    tr.ToolRounds(stores.ToolRounds),
		Blobs:         stores.Blobs,
		Anchors:       stores.ContextAnchors,
		Provider:      mp,
		Logger:        logger.Named("run"),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("new run engine: %w", err)
	}
	return e, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			logger.Warn("run engine shutdown", zap.Error(err))
		}
	}, nil
}

// retryLimits are the engine's limits for a configured total retry wait;
// 0 turns retries off.
func retryLimits(wait time.Duration) run.Limits {
	if wait <= 0 {
		return run.Limits{MaxRetries: -1, RetryBudget: -1}
	}
	return run.Limits{RetryBudget: wait}
}

// NewUpstream is the pass-through to Cursor's own service, through the
// configured outbound proxy or the standard proxy environment. It dials
// Cursor through the outbound policy's named view, so that a *.cursor.sh
// name resolving inward never borrows an allow-list entry made for a
// self-hosted model, and the proxy's tunnels and plain forwards through
// the full policy; both check targets handed to the outbound proxy too.
//
// Every request to Cursor passes the Cursor cloud policy
// (KEYGATE_CURSOR_CLOUD; allow on a laptop, metadata in company mode) and
// is counted in the ledger.
func NewUpstream(cfg config.Config, policy *egress.Policy, ledger *cloudledger.Recorder, logger *zap.Logger) (*upstream.Forwarder, error) {
	named := policy.Named()
	cloud := cfg.CursorCloudPolicy()
	opts := upstream.Options{Proxy: cfg.OutboundProxy, Dial: named.DialContext, CheckProxied: named.CheckProxied,
		TunnelDial: policy.DialContext, TunnelCheckProxied: policy.CheckProxied, Policy: cloud}
	if ledger != nil {
		opts.Ledger = ledger
	}
	fwd, err := upstream.New(opts, logger.Named("upstream"))
	if err != nil {
		return nil, fmt.Errorf("new upstream forwarder: %w", err)
	}
	logger.Info("cursor cloud policy", zap.String("policy", string(cloud)))
	return fwd, nil
}

// NewCloudLedger is the ledger of what goes to Cursor's own service: the
// Prometheus counters at once, daily aggregates per user and route flushed
// to the store every few seconds until the cleanup, which flushes the rest.
func NewCloudLedger(store *relstore.Store, m *metrics.Metrics, logger *zap.Logger) (*cloudledger.Recorder, func()) {
	rec := cloudledger.New(cloudledger.Options{Store: store.CloudUsage(), Observe: m.CursorCloud, Logger: logger.Named("cloudledger")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rec.Run(ctx)
	}()
	return rec, func() {
		cancel()
		<-done
	}
}

// CursorServerOptions are what the Cursor protocol adapter is built from.
// Relay, Budgets and AgentListener may be nil.
type CursorServerOptions struct {
	Config        config.Config
	Engine        *run.Engine
	Stores        company.CursorStores
	Publishing    *appcontrol.Publishing
	Catalog       *appcontrol.Catalog
	Upstream      *upstream.Forwarder
	Relay         *company.SealedRelay
	Tracing       *tracing.Tracing
	Budgets       *company.Budgets
	AgentListener *AgentListener
	Web           WebTools
	// Tab serves Cursor Tab on the Tab model (relayed to Cursor while none
	// is chosen).
	Tab *apptab.Service
	// CmdK serves inline edits, commit messages and branch names on their
	// models (each relayed to Cursor while it has none).
	CmdK *appcmdk.Service
	// Memories keeps users' memories: the KnowledgeBase routes and the
	// memories channel of every turn.
	Memories *memories.Service
	// Teams, in company mode, narrows the picker to the models the
	// caller's teams allow; nil on a laptop.
	Teams  *teams.Service
	Logger *zap.Logger
}

// NewCursorServer builds the Cursor protocol adapter: the run layer on the
// engine (each turn a trace of its own, holding a run slot of its user's
// budget) with the web tools configured, the enabled models in Cursor's
// picker beside Cursor's own,
// turns and appends for other models relayed to Cursor whole, and the
// transport routes; with a relay, appends reach the replica holding their
// run's RunSSE. With an agent listener, GetServerConfig sends clients that
// keep HTTP/2 on to it. The cleanup ends every open transport.
func NewCursorServer(o CursorServerOptions) (*cursor.Server, func(), error) {
	// Typed nils stay out of the interfaces: without a memories use case
	// neither the turns nor the KnowledgeBase routes use one.
	var (
		recall    agent.Memories
		knowledge unary.Knowledge
	)
	if o.Memories != nil {
		recall, knowledge = o.Memories, o.Memories
	}
	handler, err := agent.New(agent.Options{
		Engine:        o.Engine,
		Conversations: o.Stores.Conversations,
		Runs:          o.Stores.Runs,
		Blobs:         o.Stores.Blobs,
		Models:        o.Catalog,
		Search:        o.Web.Search,
		Fetch:         o.Web.Fetch,
		Memories:      recall,
		Logger:        o.Logger.Named("cursor"),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("new cursor run handler: %w", err)
	}
	var source unary.ModelSource = o.Publishing
	if o.Teams != nil {
		source = o.Teams.Published(o.Publishing)
	}
	opts := cursor.Options{
		Transport: transport.Config{RouteWait: o.Config.OpeningWait},
		Unary: unary.Options{Catalog: unary.Configured(source), Upstream: o.Upstream, AgentURL: o.AgentListener.URL(), Knowledge: knowledge,
			Mapped: o.Publishing.Mapped},
		Upstream:     o.Upstream,
		KeygateModel: o.Publishing.Serves,
		Trace:        o.Tracing.Turn,
		Tab:          o.Tab,
		CmdK:         o.CmdK,
	}
	if o.Relay != nil {
		opts.Relay = o.Relay
	}
	if o.Budgets != nil {
		opts.Admit = o.Budgets.HoldTurn
		opts.Notice = o.Budgets.TurnNotice
	}
	srv := cursor.New(handler, opts, o.Logger.Named("cursor"))
	return srv, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			o.Logger.Warn("close cursor transports", zap.Error(err))
		}
	}, nil
}

// NewCursorRoutes are the adapter's routes the proxy serves.
func NewCursorRoutes(srv *cursor.Server) CursorRoutes { return srv.Routes() }

// OpenCA loads the company CA when configured, otherwise the installation
// CA in the data dir (generated on first start, key mode 0600).
func OpenCA(cfg config.Config, dir DataDir) (*ca.Authority, error) {
	if cfg.CACert != "" {
		a, err := ca.LoadFiles(cfg.CACert, cfg.CAKey)
		if err != nil {
			return nil, fmt.Errorf("load company CA: %w", err)
		}
		return a, nil
	}
	a, _, err := ca.LoadOrCreate(string(dir), time.Now())
	if err != nil {
		return nil, fmt.Errorf("load installation CA: %w", err)
	}
	return a, nil
}

// CursorProxy is the forward proxy Cursor is pointed at; nil when disabled.
type CursorProxy = *cursorproxy.Proxy

// CursorProxyOptions are what the Cursor proxy is built from.
type CursorProxyOptions struct {
	Config    config.Config
	Endpoint  ProxyEndpoint
	Authority *ca.Authority
	Routes    CursorRoutes
	Upstream  *upstream.Forwarder
	Gate      *auth.Gate
	Tokens    *company.Tokens
	Logger    *zap.Logger
}

// NewCursorProxy builds the intercepting proxy: Keygate's routes for
// *.cursor.sh, the local stubs, and Cursor's upstream for everything else.
// In company mode it asks for gateway tokens, reaches only Cursor's hosts
// and the configured pass-through list, and refuses to start where it
// would take tokens in clear text from the network.
func NewCursorProxy(o CursorProxyOptions) (CursorProxy, error) {
	cfg := o.Config
	if cfg.ProxyListen == "" {
		return nil, nil
	}
	passthrough, err := destination.ParseAllowlist(cfg.ProxyPassthrough)
	if err != nil {
		return nil, fmt.Errorf("proxy pass-through list: %w", err)
	}
	keygate, isKeygate := cursorproxy.RouteTable(o.Routes)
	p, err := cursorproxy.New(cursorproxy.Options{
		Addr:               cfg.ProxyListen,
		Certificate:        ca.NewLeaves(o.Authority, ca.LeafOptions{}).Leaf,
		Keygate:            keygate,
		IsKeygatePath:      isKeygate,
		Upstream:           o.Upstream,
		Tunnel:             o.Upstream.DialTunnel,
		Auth:               proxyAuth(o.Gate, o.Tokens),
		Passthrough:        passthrough,
		PassthroughSetting: config.EnvProxyPassthrough,
		MaxConnsPerUser:    cfg.ProxyMaxConnsPerUser,
		MaxTokensPerUser:   cfg.ProxyMaxTokensPerUser,
		MaxTokens:          cfg.ProxyMaxTokens,
		ListenTLS:          o.Endpoint.TLS,
		TLSTerminated:      o.Endpoint.TLS == nil && strings.HasPrefix(o.Endpoint.URL, "https://"),
	}, o.Logger.Named("proxy"))
	if errors.Is(err, cursorproxy.ErrClearTextTokens) {
		return nil, fmt.Errorf("new cursor proxy: %w. Either set %s and %s (a certificate for the name developers use) so that the proxy speaks TLS, "+
			"or put a TCP-level TLS terminator in front of it and set %s=https://<its address>",
			err, config.EnvProxyTLSCert, config.EnvProxyTLSKey, config.EnvProxyURL)
	}
	if err != nil {
		return nil, fmt.Errorf("new cursor proxy: %w", err)
	}
	return p, nil
}

// ProxyEndpoint is how developers reach the Cursor proxy: the TLS it
// serves (nil: plain HTTP) and the URL they put into Cursor's http.proxy
// ("" when the proxy is disabled).
type ProxyEndpoint struct {
	TLS *tls.Config
	URL string
}

// NewProxyEndpoint loads the proxy's TLS certificate when one is
// configured and works out the proxy URL: the configured one, else the
// listen address with https:// when the proxy speaks TLS. A proxy on
// every interface is named by its certificate's first DNS name, which is
// the name clients must use anyway.
func NewProxyEndpoint(cfg config.Config, logger *zap.Logger) (ProxyEndpoint, error) {
	if cfg.ProxyListen == "" {
		return ProxyEndpoint{}, nil
	}
	var ep ProxyEndpoint
	var names []string
	if cfg.ProxyTLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.ProxyTLSCert, cfg.ProxyTLSKey)
		if err != nil {
			return ProxyEndpoint{}, fmt.Errorf("load proxy TLS certificate: %w", err)
		}
		leaf := cert.Leaf
		if leaf == nil {
			if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
				return ProxyEndpoint{}, fmt.Errorf("parse proxy TLS certificate: %w", err)
			}
		}
		names = leaf.DNSNames
		ep.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	}
	if cfg.ProxyURL != "" {
		ep.URL = strings.TrimSuffix(cfg.ProxyURL, "/")
		return ep, nil
	}
	scheme := "http"
	if ep.TLS != nil {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(cfg.ProxyListen)
	if err != nil {
		return ProxyEndpoint{}, fmt.Errorf("proxy listen address: %w", err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if i := slices.IndexFunc(names, func(n string) bool { return !strings.HasPrefix(n, "*") }); i >= 0 {
			host = names[i]
		} else {
			logger.Warn("cannot tell developers the proxy's address from its listen address; set " + config.EnvProxyURL)
		}
	}
	ep.URL = scheme + "://" + net.JoinHostPort(host, port)
	return ep, nil
}

// caCertificate serves the CA certificate Cursor's machine must trust.
func caCertificate(a *ca.Authority) http.Handler {
	pem := a.CertPEM()
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Header().Set("Content-Disposition", `attachment; filename="keygate-ca.crt"`)
		_, _ = w.Write(pem)
	})
}
