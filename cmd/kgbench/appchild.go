package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/app"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
)

// benchHTTP is the client of the child's console (CA, control API): each
// call is bounded, so a child that hangs fails the run instead of stalling it.
var benchHTTP = &http.Client{Timeout: 30 * time.Second}

// ErrNoCA means the child's /ca.crt held no certificate.
var ErrNoCA = errors.New("no certificate in /ca.crt")

// serveApp is the app child's whole life: run Keygate as `keygate serve`
// runs it on a laptop (the real composition root, app.Initialize, with its
// forward proxy, installation CA and SQLite store in a temporary data
// directory, exporting its spans to the parent's collector), print the console's
// URL, the control routes' URL and the proxy's address, serve until stdin
// closes.
func serveApp(tracesURL string) error {
	dir, err := os.MkdirTemp("", "kgbench-app-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	proxyAddr := ln.Addr().String()
	_ = ln.Close()
	cfg := config.Default()
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(dir, "data"), "127.0.0.1:0", proxyAddr
	cfg.LogFormat, cfg.LogLevel, cfg.TracesURL = "json", "error", tracesURL
	// Cursor's own service is out of reach: nothing leaves the machine.
	cfg.OutboundProxy = "http://127.0.0.1:1"
	if err := cfg.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kg, cleanup, err := app.Initialize(ctx, cfg)
	if err != nil {
		return fmt.Errorf("initialize keygate: %w", err)
	}
	defer cleanup()
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- kg.Run(ctx, func(a net.Addr) { ready <- a }) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		return fmt.Errorf("run keygate: %w", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", proxyAddr)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proxy does not answer: %w", err)
		}
	}
	// KGBENCH_APP_PPROF=host:port serves the child's profiles while it
	// runs (go tool pprof http://host:port/debug/pprof/profile).
	if a := os.Getenv("KGBENCH_APP_PPROF"); a != "" {
		// A CPU profile streams for its seconds: no write timeout.
		dbg := &http.Server{Addr: a, Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second}
		go func() { _ = dbg.ListenAndServe() }()
		defer dbg.Close()
	}
	// The parent settles the child's heap before measuring its peak, as
	// the concurrency scenario does with its own child.
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctlSrv := &http.Server{Handler: controlRoutes(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = ctlSrv.Serve(ctl) }()
	defer ctlSrv.Close()
	fmt.Printf("http://%s http://%s %s\n", addr, ctl.Addr(), proxyAddr)
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	if err := <-done; err != nil {
		return fmt.Errorf("run keygate: %w", err)
	}
	return nil
}

// appProcess is the parent's handle on the Keygate child of scenario 6.
type appProcess struct {
	*ownProcess
	// proxy is the proxy's address; url (the child's first address) is
	// the console's base URL.
	proxy string
	// cursor reaches Keygate as Cursor does: through the proxy, trusting
	// the installation CA, keep-alive connections reused across turns.
	cursor *http.Client
}

func startApp(tracesURL string) (*appProcess, error) {
	// Spans leave the child in batches every 100 ms (the SDK's standard
	// variables), so that a level's spans are in before the next starts.
	p, err := startChild([]string{"OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_BSP_MAX_QUEUE_SIZE=65536", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2048"},
		appChild.args(tracesURL)...)
	if err != nil {
		return nil, err
	}
	if len(p.extra) == 0 {
		p.close()
		return nil, errors.New("the app child printed no proxy address")
	}
	a := &appProcess{ownProcess: p, proxy: p.extra[0]}
	pool, err := a.installationCA()
	if err != nil {
		p.close()
		return nil, err
	}
	tr := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: a.proxy}), TLSClientConfig: &tls.Config{RootCAs: pool},
		MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: 5 * time.Minute,
		TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: time.Minute}
	a.cursor = &http.Client{Transport: tr}
	return a, nil
}

func (a *appProcess) close() {
	a.cursor.CloseIdleConnections()
	a.ownProcess.close()
}

// installationCA is the CA a developer's machine trusts, fetched from
// /ca.crt as a developer fetches it.
func (a *appProcess) installationCA() (*x509.CertPool, error) {
	resp, err := benchHTTP.Get(a.url + "/ca.crt")
	if err != nil {
		return nil, fmt.Errorf("get ca: %w", err)
	}
	defer resp.Body.Close()
	pem, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, ErrNoCA
	}
	return pool, nil
}

// createModel configures an OpenAI-compatible model on baseURL through the
// control API, as the console does on a laptop, and returns its id.
func (a *appProcess) createModel(baseURL string) (string, error) {
	req := &controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{DisplayName: "Bench GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
		BaseUrl: baseURL, ModelId: "gpt-5.5", SupportsTools: true}, ApiKey: "sk-kgbench-0123456789", Enabled: true}
	body, err := protojson.Marshal(req)
	if err != nil {
		return "", err
	}
	resp, err := benchHTTP.Post(a.url+"/keygate.control.v1.ModelService/CreateModel", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("create model: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("create model: %s: %s", resp.Status, raw)
	}
	var out controlv1.CreateModelResponse
	if err := protojson.Unmarshal(raw, &out); err != nil {
		return "", err
	}
	return out.GetModel().GetId(), nil
}

// span is one span the child exported.
type span struct {
	name        string
	trace       string
	start, end  time.Time
	requestID   string
	parentValid bool
}

// collector receives the child's spans over OTLP/HTTP (protobuf).
type collector struct {
	srv   *http.Server
	url   string
	mu    sync.Mutex
	spans []span
}

func startCollector() (*collector, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &collector{url: "http://" + ln.Addr().String() + "/v1/traces"}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.receive), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

func (c *collector) close() { _ = c.srv.Close() }

func (c *collector) receive(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []span
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := span{name: s.GetName(), trace: string(s.GetTraceId()), parentValid: len(s.GetParentSpanId()) > 0,
					start: time.Unix(0, int64(s.GetStartTimeUnixNano())), end: time.Unix(0, int64(s.GetEndTimeUnixNano()))}
				for _, a := range s.GetAttributes() {
					if a.GetKey() == "keygate.request_id" {
						sp.requestID = a.GetValue().GetStringValue()
					}
				}
				got = append(got, sp)
			}
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, got...)
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// take returns the spans received so far and forgets them.
func (c *collector) take() []span {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.spans
	c.spans = nil
	return out
}

// turnSpans waits until the turn spans of every request id in ids arrived
// (or wait passed) and returns every span received, grouped by trace.
func (c *collector) turnSpans(ids map[string]bool, wait time.Duration) map[string][]span {
	deadline := time.Now().Add(wait)
	for {
		c.mu.Lock()
		n := 0
		for _, s := range c.spans {
			if s.name == "keygate.turn" && ids[s.requestID] {
				n++
			}
		}
		c.mu.Unlock()
		if n >= len(ids) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	byTrace := map[string][]span{}
	for _, s := range c.take() {
		byTrace[s.trace] = append(byTrace[s.trace], s)
	}
	return byTrace
}

// pprofMux serves net/http/pprof's handlers.
func pprofMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	return mux
}
