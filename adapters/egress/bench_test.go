package egress_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"keygate/adapters/egress"
)

// BenchmarkGuardedRequest measures what the policy adds to a provider-like
// request on loopback: each iteration makes one request through the guarded
// transport and one through a plain one (the standard dialer, same
// settings), interleaved (alternating which goes first) so that both see
// the same machine load, and
// reports both times and their ratio. "dial" opens a new connection per
// request (the guarded dial decides in Control and tracks the connection
// for Originated); "kept-alive" reuses one (only the proxy choice runs).
func BenchmarkGuardedRequest(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	p, err := egress.New(context.Background(), egress.Options{
		Allow: []string{"127.0.0.1"}, Own: []string{"0.0.0.0:7878", "127.0.0.1:5432"}, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name      string
		keepAlive bool
	}{{"dial", false}, {"kept-alive", true}} {
		b.Run(mode.name, func(b *testing.B) {
			guarded := p.Transport()
			guarded.DisableKeepAlives = !mode.keepAlive
			plain := p.Transport()
			plain.DisableKeepAlives = !mode.keepAlive
			plain.Proxy = nil
			plain.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
			defer guarded.CloseIdleConnections()
			defer plain.CloseIdleConnections()
			get := func(c *http.Client) time.Duration {
				start := time.Now()
				resp, err := c.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				return time.Since(start)
			}
			gc, pc := &http.Client{Transport: guarded}, &http.Client{Transport: plain}
			get(gc)
			get(pc)
			var g, u time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				// Alternate which goes first: the first of a pair pays for
				// waking the server up.
				if i%2 == 0 {
					g += get(gc)
					u += get(pc)
				} else {
					u += get(pc)
					g += get(gc)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(g.Nanoseconds())/n, "guarded-ns/req")
			b.ReportMetric(float64(u.Nanoseconds())/n, "plain-ns/req")
			b.ReportMetric(float64(g)/float64(u), "ratio")
		})
	}
}

// BenchmarkDecide is the decision alone, for an allowed public address and
// a refused private one.
func BenchmarkDecide(b *testing.B) {
	p, err := egress.New(context.Background(), egress.Options{
		Allow: []string{"10.1.0.0/16", "models.corp"}, Own: []string{"0.0.0.0:7878", "127.0.0.1:5432"}, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("public", func(b *testing.B) {
		for b.Loop() {
			if p.CheckProxied(ctx, "8.8.8.8:443") != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("refused", func(b *testing.B) {
		for b.Loop() {
			if p.CheckProxied(ctx, "10.0.0.7:443") == nil {
				b.Fatal("allowed")
			}
		}
	})
	// A provider's name through the outbound proxy: read as a resolver
	// would (not a literal, not an alias), then left to the proxy.
	b.Run("name", func(b *testing.B) {
		for b.Loop() {
			if p.CheckProxied(ctx, "api.openai.com:443") != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("refused literal form", func(b *testing.B) {
		for b.Loop() {
			if p.CheckProxied(ctx, "2130706433:443") == nil {
				b.Fatal("allowed")
			}
		}
	})
}
