// Command server is the Keygate the console's browser test drives: the real
// composition root (app.Initialize) over a temporary data directory, with
// the SQLite store, run engine, Cursor adapter and forward proxy, plus a
// fake OpenAI-compatible provider and a hooks listener whose trigger runs a
// Cursor turn with the Cursor client simulator through Keygate's proxy.
//
// -auth picks the sign-in mode: local (the laptop install, the user is
// admin) or header (a company behind a trusted proxy: the browser test sends
// the identity headers below itself, and the proxy wants personal tokens).
//
// It prints KEYGATE_E2E_URL=<console url> and KEYGATE_E2E_HOOKS=<hooks url>
// once both listen, and stops on SIGINT/SIGTERM or when stdin closes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"keygate/app"
	"keygate/app/config"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address of Keygate's HTTP server")
	mode := flag.String("auth", "local", "sign-in mode: local or header")
	flag.Parse()
	if err := run(*addr, *mode); err != nil {
		fmt.Fprintln(os.Stderr, "e2e server:", err)
		os.Exit(1)
	}
}

// authOf is the sign-in configuration per mode. In header mode 127.0.0.1
// is the trusted proxy, so the browser and the test's own requests say who
// they are; members of keygate-admins are administrators and anyone else
// with a user header is a member.
var authOf = map[string]config.Auth{
	"local": {Mode: "local"},
	"header": {
		Mode: "header", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		UserHeader: "X-Keygate-User", NameHeader: "X-Keygate-Name", GroupsHeader: "X-Keygate-Groups",
		AdminGroups: []string{"keygate-admins"},
	},
}

func run(addr, mode string) error {
	auth, ok := authOf[mode]
	if !ok {
		return fmt.Errorf("unknown -auth %q (local, header)", mode)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); stop() }()

	dataDir, err := os.MkdirTemp("", "keygate-e2e-data-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)

	provider, err := serve(fakeProvider())
	if err != nil {
		return err
	}
	defer provider.Close()

	proxyAddr, err := freeAddr()
	if err != nil {
		return err
	}
	// Sign-in comes from the configuration (config.Load reads it from the
	// environment in the real binary).
	cfg := config.Default()
	cfg.Auth = auth
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = dataDir, addr, proxyAddr
	cfg.LogFormat, cfg.LogLevel = "json", "warn"
	cfg.OutboundProxy = "direct"
	// The fake provider stands for a self-hosted model, which header
	// (company) mode reaches only when the operator allows it.
	cfg.EgressAllow = []string{provider.Addr}
	if err := cfg.Validate(); err != nil {
		return err
	}
	kg, cleanup, err := app.Initialize(ctx, cfg)
	if err != nil {
		return fmt.Errorf("initialize keygate: %w", err)
	}
	defer cleanup()

	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- kg.Run(ctx, func(a net.Addr) { ready <- a }) }()
	var base string
	select {
	case a := <-ready:
		base = "http://" + a.String()
	case err := <-done:
		return fmt.Errorf("run keygate: %w", err)
	}

	turns, err := newTurns(proxyAddr, dataDir)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /e2e/turn", turns)
	mux.HandleFunc("GET /e2e/provider", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "http://"+provider.Addr+"/v1")
	})
	hooks, err := serve(mux)
	if err != nil {
		return err
	}
	defer hooks.Close()

	fmt.Printf("KEYGATE_E2E_URL=%s\nKEYGATE_E2E_HOOKS=http://%s\n", base, hooks.Addr)
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("run keygate: %w", err)
	}
	return nil
}

// serve starts an HTTP server for h on a free loopback port.
func serve(h http.Handler) (*http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Addr: ln.Addr().String(), Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

// freeAddr picks a free loopback port for the proxy. Keygate would bind
// 127.0.0.1:0 too, but the Connect Cursor page shows the configured
// address, and the browser test checks it names a real port.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
