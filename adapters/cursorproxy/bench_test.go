package cursorproxy_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
)

// BenchmarkPassThrough compares a client calling the fake Cursor directly
// (the baseline) with the same client going through the proxy, which
// intercepts TLS and forwards upstream: a small unary call for added
// latency, and a 1 MiB answer for throughput. Compare the proxy rows with
// the direct rows of the same run.
func BenchmarkPassThrough(b *testing.B) {
	big := bytes.Repeat([]byte("x"), 1<<20)
	fake, err := upstreamtest.NewFakeCursor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/big" {
			_, _ = w.Write(big)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(fake.Close)
	dial := upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": fake.Addr})
	proxyAddr, root := benchProxy(b, fake, dial)

	direct := &http.Transport{DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: fake.Pool}}
	viaProxy := &http.Transport{
		Proxy:           http.ProxyURL(&url.URL{Scheme: "http", Host: proxyAddr}),
		DialContext:     dial,
		TLSClientConfig: &tls.Config{RootCAs: root.Pool()},
	}
	b.Cleanup(direct.CloseIdleConnections)
	b.Cleanup(viaProxy.CloseIdleConnections)

	for _, c := range []struct {
		name string
		path string
		size int64
	}{{"unary", "/aiserver.v1.AiService/Ping", 0}, {"1MiB", "/big", 1 << 20}} {
		for _, t := range []struct {
			name string
			tr   *http.Transport
		}{{"direct", direct}, {"proxy", viaProxy}} {
			b.Run(c.name+"/"+t.name, func(b *testing.B) {
				client := &http.Client{Transport: t.tr}
				if c.size > 0 {
					b.SetBytes(c.size)
				}
				for b.Loop() {
					resp, err := client.Post("https://api2.cursor.sh"+c.path, "application/proto", bytes.NewReader([]byte("request")))
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			})
		}
	}
}

// benchProxy runs a proxy whose every route goes upstream to fake.
func benchProxy(b *testing.B, fake *upstreamtest.FakeCursor, dial func(context.Context, string, string) (net.Conn, error)) (string, *ca.Authority) {
	root, _, err := ca.Generate(time.Now(), "bench root")
	if err != nil {
		b.Fatal(err)
	}
	fwd, err := upstream.New(upstream.Options{Dial: dial, RootCAs: fake.Pool, Getenv: func(string) string { return "" }}, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(fwd.CloseIdleConnections)
	keygate, isKeygate := cursorproxy.RouteTable(nil)
	proxy, err := cursorproxy.New(cursorproxy.Options{
		Addr: "127.0.0.1:0", Certificate: ca.NewLeaves(root, ca.LeafOptions{}).Leaf,
		Keygate: keygate, IsKeygatePath: isKeygate, Upstream: fwd, Tunnel: fwd.DialTunnel,
	}, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- proxy.Run(ctx, func(a net.Addr) { addr <- a }) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Logf("proxy stopped: %v", err)
		}
	})
	return (<-addr).String(), root
}
