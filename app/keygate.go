package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/control"
	"keygate/adapters/egress"
	"keygate/adapters/httpserver"
	"keygate/adapters/relstore"
	"keygate/app/config"
	appcontrol "keygate/app/control"
)

// Keygate is a fully wired instance, ready to Run.
type Keygate struct {
	cfg       config.Config
	logger    *zap.Logger
	server    *httpserver.Server
	retention *appcontrol.Retention
	proxy     CursorProxy
	agent     *AgentServer
	egress    *egress.Policy
}

// DataDir is the prepared data directory (exists, mode 0700).
type DataDir string

// NewKeygate assembles the parts wire built.
func NewKeygate(cfg config.Config, logger *zap.Logger, server *httpserver.Server, retention *appcontrol.Retention, proxy CursorProxy, agent *AgentServer, policy *egress.Policy) *Keygate {
	return &Keygate{cfg: cfg, logger: logger, server: server, retention: retention, proxy: proxy, agent: agent, egress: policy}
}

// retentionInterval is how often detailed call records past their age are
// deleted.
const retentionInterval = time.Hour

// Run serves until ctx is cancelled, then shuts down gracefully. ready, if
// non-nil, receives the bound listen address of the HTTP server. A listener
// that fails stops the others. Each bound listener is added to the outbound
// policy's own addresses before it serves (configured port 0 included).
func (k *Keygate) Run(ctx context.Context, ready func(net.Addr)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go control.RunRetention(ctx, k.retention, retentionInterval, k.logger)
	errs := make(chan error, 3)
	n := 1
	go func() {
		errs <- k.server.Run(ctx, func(addr net.Addr) {
			k.egress.Listening(addr)
			if ready != nil {
				ready(addr)
			}
		})
	}()
	if k.proxy != nil {
		n++
		go func() {
			if err := k.proxy.Run(ctx, k.egress.Listening); err != nil {
				errs <- fmt.Errorf("cursor proxy: %w", err)
				return
			}
			errs <- nil
		}()
	}
	if k.agent != nil {
		n++
		k.egress.Listening(k.agent.ln.Addr())
		go func() { errs <- k.agent.Run(ctx) }()
	}
	var all []error
	for range n {
		if err := <-errs; err != nil {
			all = append(all, err)
			cancel()
		}
	}
	return errors.Join(all...)
}

// Handler exposes the root HTTP handler for in-process tests.
func (k *Keygate) Handler() http.Handler { return k.server.Handler() }

// PrepareDataDir creates the data directory on first start with mode 0700:
// it will hold the database, the CA key and the local secret key.
func PrepareDataDir(cfg config.Config) (DataDir, error) {
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return "", fmt.Errorf("resolve data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data dir: %w", err)
	}
	return DataDir(dir), nil
}

// NewHTTPServer mounts the routes and readiness checks of every adapter.
func NewHTTPServer(cfg config.Config, logger *zap.Logger, dir DataDir, store *relstore.Store, controlRoutes ControlRoutes, accountRoutes AccountRoutes, authority *ca.Authority) *httpserver.Server {
	routes := map[string]http.Handler{"GET /ca.crt": caCertificate(authority)}
	for p, h := range controlRoutes {
		routes[p] = h
	}
	for p, h := range accountRoutes {
		routes[p] = h
	}
	return httpserver.New(logger, httpserver.Options{
		Addr:            cfg.Listen,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Routes:          routes,
		Checks: []httpserver.Check{
			{Name: "data_dir", Fn: func(context.Context) error { return checkWritable(string(dir)) }},
			{Name: "store", Fn: storeReady(store)},
		},
	})
}

// checkWritable proves the data directory still accepts writes (a full or
// read-only disk makes Keygate unable to keep conversations).
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".ready-*")
	if err != nil {
		return fmt.Errorf("data dir not writable: %w", err)
	}
	name := f.Name()
	return errors.Join(f.Close(), os.Remove(name))
}
