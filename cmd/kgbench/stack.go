package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/provider"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/app/run"
	"keygate/domain/llm"
	"keygate/ports"
)

// kinds are the provider protocols, each behind its own model id.
var kinds = []struct {
	name  string
	model string
	kind  llm.ProviderKind
}{
	{"OpenAI Chat", "kg-chat", llm.ProviderOpenAIChat},
	{"OpenAI Responses", "kg-responses", llm.ProviderOpenAIResponses},
	{"Anthropic Messages", "kg-anthropic", llm.ProviderAnthropic},
}

// benchLinger replaces the transport's 2 s default linger.
const benchLinger = 20 * time.Millisecond

// models resolves the benchmark's model ids to the fake provider.
type models struct{ base string }

func (m models) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	for _, k := range kinds {
		if k.model != id {
			continue
		}
		u, err := provider.RequestURL(m.base, false, k.kind)
		if err != nil {
			return ports.Endpoint{}, ports.ModelConfig{}, err
		}
		return ports.Endpoint{Kind: k.kind, URL: u, APIKey: "sk-bench"},
			ports.ModelConfig{ID: id, ModelID: "upstream-" + id, DisplayName: k.name, Enabled: true, ProviderKind: k.kind}, nil
	}
	return ports.Endpoint{}, ports.ModelConfig{}, ports.ErrNotFound
}

// stack is Keygate assembled in-process as keygate serve assembles it for
// the Cursor agent: SQLite store, run engine, real provider client, run
// layer and Cursor adapter with production transport timings, served over
// HTTP; optionally the forward proxy in front.
type stack struct {
	store  *relstore.Store
	engine *run.Engine
	// loads counts the full conversation loads of the engine and run layer.
	loads countedLoads
	env   *cursortest.Env
	// client reaches the adapter directly; proxied through the proxy with
	// TLS interception, as a Cursor client set up for Keygate does.
	client, proxied *http.Client
	closers         []func()
}

func newStack(ctx context.Context, dir, providerURL string) (*stack, error) {
	s := &stack{}
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	s.closers = append(s.closers, func() { _ = db.Close() })
	s.store = relstore.New(db, nil)
	st := s.store.Stores()
	s.loads = newCountedLoads(st.Conversations)
	st.Conversations = s.loads
	s.engine, err = run.New(run.Options{
		Conversations: st.Conversations, Runs: st.Runs, ToolRounds: st.ToolRounds, Blobs: st.Blobs,
		Provider: provider.New(provider.Options{Recorder: st.Calls}),
		Limits:   run.Limits{MaxRetries: -1},
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("new engine: %w", err)
	}
	s.closers = append([]func(){func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = s.engine.Shutdown(ctx)
	}}, s.closers...)
	handler, err := agent.New(agent.Options{Engine: s.engine, Conversations: st.Conversations, Models: models{base: providerURL}})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("new run handler: %w", err)
	}
	// Production timings except Linger: a finished turn's stream stays open
	// 2 s for another action before its end-of-stream frame, which would only
	// add idle waiting to sequential turns. Nothing measured happens then.
	s.env = cursortest.Serve(handler, cursor.Options{Transport: transport.Config{Linger: benchLinger}})
	s.closers = append([]func(){s.env.Close}, s.closers...)
	s.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, DialContext: upstreamtest.Dialer(nil)}}
	if err := s.startProxy(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// startProxy runs the forward proxy with the adapter's routes as Keygate's
// and a client that trusts the proxy's CA.
func (s *stack) startProxy() error {
	root, _, err := ca.Generate(time.Now(), "kgbench root")
	if err != nil {
		return fmt.Errorf("generate ca: %w", err)
	}
	fwd, err := upstream.New(upstream.Options{Dial: upstreamtest.Dialer(nil), Getenv: func(string) string { return "" }}, zap.NewNop())
	if err != nil {
		return fmt.Errorf("new upstream: %w", err)
	}
	keygate, isKeygate := cursorproxy.RouteTable(s.env.Server.Routes())
	proxy, err := cursorproxy.New(cursorproxy.Options{
		Addr: "127.0.0.1:0", Certificate: ca.NewLeaves(root, ca.LeafOptions{}).Leaf,
		Keygate: keygate, IsKeygatePath: isKeygate, Upstream: fwd, Tunnel: fwd.DialTunnel,
	}, zap.NewNop())
	if err != nil {
		return fmt.Errorf("new proxy: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- proxy.Run(ctx, func(a net.Addr) { addr <- a }) }()
	var bound net.Addr
	select {
	case bound = <-addr:
	case err := <-done:
		cancel()
		return fmt.Errorf("run proxy: %w", err)
	}
	s.closers = append([]func(){func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintf(os.Stderr, "kgbench: stop proxy: %v\n", err)
		}
		fwd.CloseIdleConnections()
	}}, s.closers...)
	s.proxied = &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyURL(&url.URL{Scheme: "http", Host: bound.String()}),
		DialContext:         upstreamtest.Dialer(nil),
		TLSClientConfig:     &tls.Config{RootCAs: root.Pool()},
		MaxIdleConnsPerHost: 4096,
	}}
	return nil
}

// baseURL is the adapter's address as the client on path sees it.
func (s *stack) baseURL(viaProxy bool) (string, *http.Client) {
	if viaProxy {
		return "https://api2.cursor.sh", s.proxied
	}
	return s.env.URL, s.client
}

func (s *stack) closeIdle() {
	s.client.CloseIdleConnections()
	s.proxied.CloseIdleConnections()
}

func (s *stack) close() {
	for _, c := range s.closers {
		c()
	}
}
