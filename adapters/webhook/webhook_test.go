package webhook_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/webhook"
)

var _ = Describe("Poster", func() {
	fast := func(c *http.Client) *webhook.Poster {
		p := webhook.New(c)
		p.Backoff, p.Timeout = time.Millisecond, 200*time.Millisecond
		return p
	}

	It("posts the JSON body, retrying a 5xx and a 429 until an attempt succeeds", func() {
		var n atomic.Int32
		var got []byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Expect(r.Method).To(Equal(http.MethodPost))
			Expect(r.Header.Get("Content-Type")).To(Equal("application/json"))
			got, _ = io.ReadAll(r.Body)
			switch n.Add(1) {
			case 1:
				w.WriteHeader(http.StatusServiceUnavailable)
			case 2:
				w.WriteHeader(http.StatusTooManyRequests)
			}
		}))
		DeferCleanup(srv.Close)
		Expect(fast(srv.Client()).PostWebhook(context.Background(), srv.URL+"/hook", []byte(`{"text":"hi"}`))).To(Succeed())
		Expect(n.Load()).To(BeEquivalentTo(3))
		Expect(string(got)).To(Equal(`{"text":"hi"}`))
	})

	It("gives up after its attempts, and does not retry a 4xx, naming the host but never the URL's token", func() {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			if r.URL.Path == "/gone/secret-token" {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusBadGateway)
		}))
		DeferCleanup(srv.Close)
		p := fast(srv.Client())
		err := p.PostWebhook(context.Background(), srv.URL+"/down/secret-token", []byte(`{}`))
		Expect(err).To(MatchError(ContainSubstring("answered 502")))
		Expect(err.Error()).NotTo(ContainSubstring("secret-token"))
		Expect(n.Load()).To(BeEquivalentTo(3))
		n.Store(0)
		err = p.PostWebhook(context.Background(), srv.URL+"/gone/secret-token", []byte(`{}`))
		Expect(err).To(MatchError(ContainSubstring("answered 404")))
		Expect(n.Load()).To(BeEquivalentTo(1))
	})

	It("bounds each attempt in time, and keeps the URL out of a network error", func() {
		block := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
		DeferCleanup(srv.Close)
		DeferCleanup(func() { close(block) })
		p := fast(srv.Client())
		p.Attempts = 1
		start := time.Now()
		err := p.PostWebhook(context.Background(), srv.URL+"/slow/secret-token", []byte(`{}`))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).NotTo(ContainSubstring("secret-token"))
		Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
		Expect(p.PostWebhook(context.Background(), "ftp://x/y", nil)).To(MatchError(ContainSubstring("not an http(s) URL")))
	})
})
