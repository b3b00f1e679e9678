package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/ca"
	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/picker"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/cursor/unary"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/egress"
	"keygate/adapters/metrics"
	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/adapters/upstream"
	"keygate/app/company"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/app/run"
	"keygate/domain/budget"
	"keygate/domain/destination"
	"keygate/domain/identity"
	"keygate/ports"
)

// CursorRoutes are the routes of the Cursor protocol adapter (RunSSE,
// BidiAppend, model lists, server config). The proxy serves them for
// intercepted *.cursor.sh requests.
type CursorRoutes map[string]http.Handler

// NewEngine builds the run engine over the store and the provider client.
// Conversations are kept to the user whose turn opened them (the identity
// the Cursor proxy put on the turn). Tool rounds are traced as spans of
// the turn whose run stores them. The cleanup stops every run still going
// (each ends Cancelled).
func NewEngine(store *relstore.Store, tenancy *company.Tenancy, mp ports.ModelProvider, m *metrics.Metrics, tr *tracing.Tracing, logger *zap.Logger) (*run.Engine, func(), error) {
	st := store.Stores()
	e, err := run.New(run.Options{
		Conversations: tenancy.ConversationStore(st.Conversations),
		Runs:          m.Runs(st.Runs),
		ToolRounds:    tr.ToolRounds(st.ToolRounds),
		Blobs:         st.Blobs,
		Anchors:       store.ContextAnchors(),
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

// NewUpstream is the pass-through to Cursor's own service, through the
// configured outbound proxy or the standard proxy environment. It dials,
// also for the proxy's tunnels and plain forwards, through the outbound
// policy, which checks targets handed to the outbound proxy too.
func NewUpstream(cfg config.Config, policy *egress.Policy, logger *zap.Logger) (*upstream.Forwarder, error) {
	fwd, err := upstream.New(upstream.Options{Proxy: cfg.OutboundProxy, Dial: policy.DialContext, CheckProxied: policy.CheckProxied},
		logger.Named("upstream"))
	if err != nil {
		return nil, fmt.Errorf("new upstream forwarder: %w", err)
	}
	return fwd, nil
}

// NewCursorServer builds the Cursor protocol adapter: the run layer on the
// engine (each turn a trace of its own) with the web tools configured,
// model lists merged with Cursor's,
// foreign appends relayed to Cursor, and the transport routes; with a relay,
// appends reach the replica holding their run's RunSSE. With an agent
// listener, GetServerConfig sends clients that keep HTTP/2 on to it. The
// cleanup ends every open transport.
func NewCursorServer(engine *run.Engine, store *relstore.Store, tenancy *company.Tenancy, models *appcontrol.Models, fwd *upstream.Forwarder, relay ports.AppendRelay, tr *tracing.Tracing, budgets *company.Budgets, agentListener *AgentListener, web WebTools, logger *zap.Logger) (*cursor.Server, func(), error) {
	st := store.Stores()
	handler, err := agent.New(agent.Options{
		Engine:        engine,
		Conversations: tenancy.ConversationStore(st.Conversations),
		Runs:          st.Runs,
		Blobs:         st.Blobs,
		Models:        models,
		Search:        web.Search,
		Fetch:         web.Fetch,
		Logger:        logger.Named("cursor"),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("new cursor run handler: %w", err)
	}
	var turns transport.RunHandler = handler
	if budgets != nil {
		turns = budgetedTurns{next: turns, budgets: budgets}
	}
	srv := cursor.New(tracedTurns{next: turns, tr: tr}, cursor.Options{
		Unary: unary.Options{Catalog: modelCatalog{models}, Upstream: fwd, AgentURL: agentListener.URL()},
		// A turn whose model Keygate does not serve (and speech-to-text
		// appends) goes to Cursor whole: its appends and its RunSSE.
		Upstream:     fwd,
		KeygateModel: keygateModel(models),
		Relay:        relay,
	}, logger.Named("cursor"))
	return srv, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			logger.Warn("close cursor transports", zap.Error(err))
		}
	}, nil
}

// NewCursorRoutes are the adapter's routes the proxy serves.
func NewCursorRoutes(srv *cursor.Server) CursorRoutes { return srv.Routes() }

// tracedTurns makes each turn the root span of a trace. The run layer
// starts the turn's run with the context it is served with, so the spans of
// the run's model calls and tool rounds nest under the turn's.
type tracedTurns struct {
	next transport.RunHandler
	tr   *tracing.Tracing
}

func (t tracedTurns) ServeRun(ctx context.Context, turn *transport.Turn) error {
	ctx, end := t.tr.Turn(ctx, turn.RequestID, turn.Request.GetConversationId(), transport.ModelID(turn.Request))
	err := t.next.ServeRun(ctx, turn)
	end(err)
	return err
}

// budgetedTurns holds one of the user's concurrent-run slots for each
// top-level turn; a turn over the limit ends at once with the limit's
// message in the client's error bubble. A subagent's turn runs inside its
// parent's slot.
type budgetedTurns struct {
	next    transport.RunHandler
	budgets *company.Budgets
}

func (b budgetedTurns) ServeRun(ctx context.Context, turn *transport.Turn) error {
	if turn.Parent.RequestID != "" {
		return b.next.ServeRun(ctx, turn)
	}
	who, ok := identity.FromContext(ctx)
	if !ok {
		return b.next.ServeRun(ctx, turn) // the engine's stores refuse an anonymous turn
	}
	release, err := b.budgets.HoldRun(ctx, who.UserID, turn.RequestID)
	var exceeded *budget.ExceededError
	switch {
	case errors.As(err, &exceeded):
		return agent.FailureError(&run.Failure{Category: run.CategoryLimit, Message: exceeded.Error(), Err: err})
	case err != nil:
		return fmt.Errorf("hold a run slot: %w", err)
	}
	defer release()
	return b.next.ServeRun(ctx, turn)
}

// keygateModel tells the Cursor adapter which turns Keygate serves: an
// enabled configured model. A store error keeps the turn local, so the run
// layer reports it instead of Cursor seeing an unknown model.
func keygateModel(models *appcontrol.Models) func(context.Context, string) bool {
	return func(ctx context.Context, id string) bool {
		m, err := models.Get(ctx, id)
		if errors.Is(err, ports.ErrNotFound) {
			return false
		}
		return err != nil || m.Config.Enabled
	}
}

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

// NewCursorProxy builds the intercepting proxy: Keygate's routes for
// *.cursor.sh, the local stubs, and Cursor's upstream for everything else.
// In company mode it asks for gateway tokens, reaches only Cursor's hosts
// and the configured pass-through list, and refuses to start where it
// would take tokens in clear text from the network.
func NewCursorProxy(cfg config.Config, endpoint ProxyEndpoint, authority *ca.Authority, routes CursorRoutes, fwd *upstream.Forwarder, gate *auth.Gate, tokens *company.Tokens, logger *zap.Logger) (CursorProxy, error) {
	if cfg.ProxyListen == "" {
		return nil, nil
	}
	passthrough, err := destination.ParseAllowlist(cfg.ProxyPassthrough)
	if err != nil {
		return nil, fmt.Errorf("proxy pass-through list: %w", err)
	}
	keygate, isKeygate := cursorproxy.RouteTable(routes)
	p, err := cursorproxy.New(cursorproxy.Options{
		Addr:               cfg.ProxyListen,
		Certificate:        ca.NewLeaves(authority, ca.LeafOptions{}).Leaf,
		Keygate:            keygate,
		IsKeygatePath:      isKeygate,
		Upstream:           fwd,
		Tunnel:             fwd.DialTunnel,
		Auth:               proxyAuth(gate, tokens),
		Passthrough:        passthrough,
		PassthroughSetting: config.EnvProxyPassthrough,
		ListenTLS:          endpoint.TLS,
		TLSTerminated:      endpoint.TLS == nil && strings.HasPrefix(endpoint.URL, "https://"),
	}, logger.Named("proxy"))
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

// modelCatalog publishes the enabled models to Cursor's model picker, each
// with the parameters its provider supports.
type modelCatalog struct{ models *appcontrol.Models }

func (c modelCatalog) Models(ctx context.Context, _ http.Header) ([]unary.Model, error) {
	all, err := c.models.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]unary.Model, 0, len(all))
	for _, m := range all {
		cfg := m.Config
		if !cfg.Enabled {
			continue
		}
		p := picker.For(cfg)
		out = append(out, unary.Model{
			ID:          cfg.ID,
			DisplayName: cfg.DisplayName,
			Badge:       badge(cfg.BaseURL),
			Description: cfg.Tooltip,
			Thinking:    len(p.Efforts) > 0,
			Images:      cfg.SupportsImages,
			Picker:      p,
		})
	}
	return out, nil
}

// badge labels a model with its provider host, so users see where a turn
// goes.
func badge(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
