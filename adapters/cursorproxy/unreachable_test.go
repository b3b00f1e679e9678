package cursorproxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"keygate/adapters/cursorproxy"
	"keygate/adapters/upstream"
)

var _ = Describe("Passing a request through to Cursor, which does not read its body", func() {
	var (
		opts envOptions
		logs *observer.ObservedLogs
	)

	BeforeEach(func() {
		core, observed := observer.New(zap.DebugLevel)
		logs = observed
		opts = envOptions{
			Routes: map[string]http.Handler{"/aiserver.v1.AiService/GetServerConfig": whoami},
			Log:    zap.New(core),
		}
	})

	// post sends a request with a 64 KiB body through the proxy, as Cursor
	// does, and returns the answer's status and body.
	post := func(client *http.Client, body io.Reader) (int, string) {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodPost, "https://api2.cursor.sh/aiserver.v1.AiService/CheckFeatureStatus", body)
		Expect(err).NotTo(HaveOccurred())
		resp, err := client.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, string(raw)
	}

	// noPanics asserts the servers logged no panic: net/http logs one for
	// a request body read after its handler returned.
	noPanics := func() {
		GinkgoHelper()
		Expect(logs.FilterMessageSnippet("panic").All()).To(BeEmpty())
	}

	It("answers 502 to each request when Cursor is unreachable, and no goroutine reads a body after its handler returned", func() {
		// A port nothing listens on: every dial to Cursor is refused.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		refusing := ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		opts.Tune = func(o *cursorproxy.Options) {
			fwd, err := upstream.New(upstream.Options{
				Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, network, refusing)
				},
				Getenv: func(string) string { return "" },
			}, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			o.Upstream = fwd
		}
		client := startEnv(opts).Client(nil)
		for i := range 50 {
			status, _ := post(client, strings.NewReader(strings.Repeat("x", 64<<10)))
			Expect(status).To(Equal(http.StatusBadGateway), "request %d", i)
		}
		noPanics()
	})

	It("answers 502 to each plain-HTTP forward whose target is unreachable, and no goroutine reads a body after its handler returned", func() {
		opts.Cursor = http.NotFoundHandler()
		client := startEnv(opts).Client(nil)
		for i := range 50 {
			req, err := http.NewRequest(http.MethodPost, "http://unreachable.example/upload", strings.NewReader(strings.Repeat("x", 64<<10)))
			Expect(err).NotTo(HaveOccurred())
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			Expect(resp).To(HaveHTTPStatus(http.StatusBadGateway), "request %d", i)
		}
		noPanics()
	})

	It("passes on whole an answer Cursor sends before the body ended", func() {
		opts.Cursor = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "early answer")
		})
		client := startEnv(opts).Client(nil)
		for i := range 10 {
			// A body that keeps coming after the answer: the transport is
			// still reading it when the pass-through is done.
			pr, pw := io.Pipe()
			go func() {
				for range 50 {
					if _, err := pw.Write([]byte(strings.Repeat("y", 1024))); err != nil {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
				_ = pw.Close()
			}()
			status, text := post(client, pr)
			_ = pr.Close()
			Expect(status).To(Equal(http.StatusOK), "request %d", i)
			Expect(text).To(Equal("early answer"))
		}
		noPanics()
	})
})
