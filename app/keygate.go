package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/control"
	"keygate/adapters/cursor"
	"keygate/adapters/egress"
	"keygate/adapters/httpserver"
	"keygate/adapters/relstore"
	"keygate/app/company"
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
	drain     *Drain
	turns     *cursor.Server
	binding   *appcontrol.KeyBinding
}

// Drain is whether this process is draining before it stops: from then on
// its readiness check fails, so a load balancer sends new work to the
// other replicas.
type Drain struct{ on atomic.Bool }

// NewDrain returns a process's drain state, not draining.
func NewDrain() *Drain { return &Drain{} }

// Ready is the readiness check: unready once draining began.
func (d *Drain) Ready(context.Context) error {
	if d.on.Load() {
		return errors.New("draining: this replica is stopping and starts no new turn; its running turns finish or move to another replica")
	}
	return nil
}

// DataDir is the prepared data directory (exists, mode 0700).
type DataDir string

// KeygateParts are the running parts of a Keygate; Proxy and Agent are nil
// when disabled.
type KeygateParts struct {
	Config    config.Config
	Logger    *zap.Logger
	Server    *httpserver.Server
	Retention *appcontrol.Retention
	Proxy     CursorProxy
	Agent     *AgentServer
	Egress    *egress.Policy
	Drain     *Drain
	// Turns is the Cursor adapter, drained before the listeners stop.
	Turns *cursor.Server
	// KeyBinding is the start-up migration Run runs before anything
	// serves; nil runs none.
	KeyBinding *appcontrol.KeyBinding
}

// NewKeygate assembles the parts wire built.
func NewKeygate(p KeygateParts) *Keygate {
	return &Keygate{cfg: p.Config, logger: p.Logger, server: p.Server, retention: p.Retention, proxy: p.Proxy, agent: p.Agent, egress: p.Egress,
		drain: p.Drain, turns: p.Turns, binding: p.KeyBinding}
}

// retentionInterval is how often detailed call records past their age are
// deleted.
const retentionInterval = time.Hour

// Run first runs the start-up migration (see migrate); then it serves
// until ctx is cancelled, drains (see config.DrainTimeout), and shuts down
// gracefully. ready, if non-nil, receives the bound listen
// address of the HTTP server. A listener that fails stops the others. Each
// bound listener is added to the outbound policy's own addresses before it
// serves (configured port 0 included).
func (k *Keygate) Run(ctx context.Context, ready func(net.Addr)) error {
	if err := k.migrate(ctx); err != nil {
		return err
	}
	stopping := ctx
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go func() {
		select {
		case <-stopping.Done():
			k.drainTurns(ctx)
			cancel()
		case <-ctx.Done():
		}
	}()
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

// migrate seals the provider keys stored before keys were bound, and the
// custom headers stored in clear, bound to their provider's current
// origin, before any listener serves a request that could use them.
// Initialize built the migration after CheckReplica, so a replica with
// another secret key never re-seals what it cannot open.
func (k *Keygate) migrate(ctx context.Context) error {
	if k.binding == nil {
		return nil
	}
	n, err := k.binding.Bind(ctx)
	if err != nil {
		return fmt.Errorf("bind stored provider keys and headers to their endpoints: %w", err)
	}
	if n > 0 {
		k.logger.Info("sealed stored provider keys and custom headers bound to their endpoints", zap.Int("sealed", n))
	}
	return nil
}

// drainTurns turns /readyz unready first, then lets the running turns
// finish for the drain timeout while new ones go to other replicas; the
// shutdown that follows hands the rest over. Only a server on PostgreSQL
// drains: a laptop stopping has nobody to hand its turns to, and its user
// wants it to stop at once.
func (k *Keygate) drainTurns(ctx context.Context) {
	if k.drain == nil || k.cfg.DrainTimeout <= 0 || k.cfg.DatabaseURL == "" {
		return
	}
	k.drain.on.Store(true)
	if k.proxy != nil {
		k.proxy.Drain()
	}
	if k.turns == nil {
		return
	}
	k.logger.Info("draining: readiness off, no new turns, running turns finish", zap.Duration("timeout", k.cfg.DrainTimeout))
	ctx, cancel := context.WithTimeout(ctx, k.cfg.DrainTimeout)
	defer cancel()
	if err := k.turns.Drain(ctx); err != nil {
		k.logger.Warn("drain timed out; the turns still running are handed over to other replicas", zap.Error(err))
		return
	}
	k.logger.Info("drained: no turn runs here any more")
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

// HTTPServerOptions are what the main HTTP listener serves.
type HTTPServerOptions struct {
	Config        config.Config
	Logger        *zap.Logger
	DataDir       DataDir
	Store         *relstore.Store
	ControlRoutes ControlRoutes
	AccountRoutes AccountRoutes
	APIRoutes     APIRoutes
	SCIMRoutes    SCIMRoutes
	Authority     *ca.Authority
	// Relay is nil without replicas.
	Relay *company.SealedRelay
	Drain *Drain
}

// NewHTTPServer mounts the routes and readiness checks of every adapter.
func NewHTTPServer(o HTTPServerOptions) *httpserver.Server {
	routes := map[string]http.Handler{"GET /ca.crt": caCertificate(o.Authority)}
	for p, h := range o.ControlRoutes {
		routes[p] = h
	}
	for p, h := range o.AccountRoutes {
		routes[p] = h
	}
	for p, h := range o.APIRoutes {
		routes[p] = h
	}
	for p, h := range o.SCIMRoutes {
		routes[p] = h
	}
	dir := string(o.DataDir)
	checks := []httpserver.Check{
		{Name: "drain", Fn: o.Drain.Ready},
		{Name: "data_dir", Fn: func(context.Context) error { return checkWritable(dir) }},
		{Name: "store", Fn: storeReady(o.Store)},
	}
	if o.Relay != nil {
		checks = append(checks, httpserver.Check{Name: "relay", Fn: o.Relay.Ready})
	}
	return httpserver.New(o.Logger, httpserver.Options{
		Addr:            o.Config.Listen,
		ShutdownTimeout: o.Config.ShutdownTimeout,
		Routes:          routes,
		Checks:          checks,
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
