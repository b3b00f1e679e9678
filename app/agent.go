package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/ca"
	"keygate/adapters/cursor"
	"keygate/app/config"
	"keygate/domain/identity"
)

// AgentListener is the bound socket of the HTTP/2 agent path (a laptop-only
// alternative to the proxy): Cursor clients that keep HTTP/2 on open
// AgentService/Run at the URL GetServerConfig advertises as agentn_url,
// directly rather than through the proxy. nil when --agent-listen is off.
type AgentListener struct {
	ln  net.Listener
	tls *tls.Config
}

// OpenAgentListener binds --agent-listen with TLS for its IP, signed by the
// CA Cursor already trusts for the proxy, and ALPN h2 only. It binds while
// the graph is built, not in Run, so that the URL the Cursor adapter
// advertises names the bound port, also for port 0. It is refused unless
// sign-in is local (config.CheckAgentListenMode, which Validate applies
// too, so keygate doctor fails such a configuration): its requests carry no Keygate credentials (Cursor
// sends them straight there, past the proxy and its gateway token, with
// only Cursor's own session token), so every one is served as the local
// user. A company serves those clients through the proxy once HTTP/2 is off
// (docs/cursor-protocol.md, "HTTP/2 ignores the proxy"). The cleanup closes
// a socket Run never served.
func OpenAgentListener(cfg config.Config, gate *auth.Gate, authority *ca.Authority) (*AgentListener, func(), error) {
	if cfg.AgentListen == "" {
		return nil, func() {}, nil
	}
	if gate.Mode() != auth.ModeLocal {
		cfg.Auth.Mode = string(gate.Mode()) // the mode the gate enforces decides, whatever cfg says
		if err := cfg.CheckAgentListenMode(); err != nil {
			return nil, nil, err
		}
	}
	ln, err := net.Listen("tcp", cfg.AgentListen)
	if err != nil {
		return nil, nil, fmt.Errorf("agent listener: %w", err)
	}
	ip := ln.Addr().(*net.TCPAddr).IP.String()
	leaves := ca.NewLeaves(authority, ca.LeafOptions{})
	if _, err := leaves.Leaf(ip); err != nil {
		_ = ln.Close()
		return nil, nil, fmt.Errorf("agent listener certificate: %w", err)
	}
	return &AgentListener{ln: ln, tls: &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2"},
		// Clients send no SNI for an IP address; whatever name one sends,
		// the listener answers for its own IP only. Leaves re-mints before
		// the leaf expires, so a long-running laptop keeps a valid one.
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return leaves.Leaf(ip) },
	}}, func() { _ = ln.Close() }, nil
}

// URL is the origin advertised as agentn_url; empty when l is nil.
func (l *AgentListener) URL() string {
	if l == nil {
		return ""
	}
	return "https://" + l.ln.Addr().String()
}

// AgentServer serves the Cursor adapter's agent routes on the agent
// listener; nil when it is off.
type AgentServer struct {
	ln      net.Listener
	srv     *http.Server
	timeout time.Duration
	log     *zap.Logger
}

// NewAgentServer serves AgentService/Run on l over HTTP/2 only.
func NewAgentServer(cfg config.Config, l *AgentListener, srv *cursor.Server, logger *zap.Logger) *AgentServer {
	if l == nil {
		return nil
	}
	log := logger.Named("agent")
	hs := cursor.NewAgentListener(srv, l.tls)
	hs.ErrorLog = zap.NewStdLog(log)
	return &AgentServer{ln: l.ln, srv: hs, timeout: cfg.ShutdownTimeout, log: log}
}

// Run serves until ctx is cancelled, then shuts down gracefully. Every
// request is the local user's (OpenAgentListener refuses any other sign-in
// mode): the Cursor transport scopes request ids and runs by that identity,
// and the engine's stores refuse an anonymous turn.
func (a *AgentServer) Run(ctx context.Context) error {
	a.srv.BaseContext = func(net.Listener) context.Context {
		return identity.NewContext(context.WithoutCancel(ctx), identity.Local)
	}
	a.log.Info("agent listening", zap.String("addr", a.ln.Addr().String()), zap.String("protocol", "h2"))
	served := make(chan error, 1)
	go func() { served <- a.srv.ServeTLS(a.ln, "", "") }()
	select {
	case err := <-served:
		return fmt.Errorf("serve agent listener: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.timeout)
	defer cancel()
	if err := a.srv.Shutdown(sctx); err != nil {
		// Runs still open after the grace period are cut, not waited for.
		_ = a.srv.Close()
		return fmt.Errorf("graceful shutdown of the agent listener: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve agent listener: %w", err)
	}
	return nil
}
