package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Check is a named readiness check. Fn must honour ctx and return nil when
// the dependency can serve traffic.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Options configure a Server.
type Options struct {
	// Addr is the listen address, for example "127.0.0.1:7878".
	Addr string
	// ShutdownTimeout bounds graceful shutdown; open requests still running
	// then are cut.
	ShutdownTimeout time.Duration
	// Checks decide readiness; /readyz is 200 only when all pass.
	Checks []Check
	// Routes are mounted as given; patterns follow net/http.ServeMux.
	Routes map[string]http.Handler
	// ReadHeaderTimeout bounds reading a request's headers (default 10 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, headers and body
	// (default 30 s): a client that trickles its body is cut. Console and
	// control requests are small. It does not bound the response: once the
	// body is read the connection's read deadline is lifted, so a streamed
	// answer (a connection test, TestModel) runs as long as it needs, and
	// there is deliberately no write timeout for the same reason.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no request for
	// that long (default 60 s).
	IdleTimeout time.Duration
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, 10*time.Second)
	def(&o.ReadTimeout, 30*time.Second)
	def(&o.IdleTimeout, 60*time.Second)
	return o
}

// Server is Keygate's HTTP server.
type Server struct {
	opts   Options
	logger *zap.Logger
	mux    *http.ServeMux
}

// New builds a Server. It does not listen until Run.
func New(logger *zap.Logger, opts Options) *Server {
	s := &Server{opts: opts.withDefaults(), logger: logger.Named("http"), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	for pattern, h := range opts.Routes {
		s.mux.Handle(pattern, h)
	}
	return s
}

// Handler returns the root handler, for tests that serve it themselves.
func (s *Server) Handler() http.Handler { return s.mux }

// Run listens on the configured address and serves until ctx is cancelled,
// then shuts down gracefully. ready, if non-nil, receives the bound address
// once the listener is open (useful with port 0). It returns nil after a
// clean shutdown.
func (s *Server) Run(ctx context.Context, ready func(addr net.Addr)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          zap.NewStdLog(s.logger),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.logger.Info("listening", zap.String("addr", ln.Addr().String()))
	if ready != nil {
		ready(ln.Addr())
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.logger.Info("shutting down", zap.Duration("timeout", s.opts.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still open after the grace period are cut, not waited for.
		_ = srv.Close()
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz runs every check with a short deadline so a hung dependency makes
// the probe fail rather than hang.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	failed := map[string]string{}
	for _, c := range s.opts.Checks {
		if err := c.Fn(ctx); err != nil {
			failed[c.Name] = err.Error()
		}
	}
	if len(failed) > 0 {
		s.logger.Warn("not ready", zap.Any("failed", failed))
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "failed": failed})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
