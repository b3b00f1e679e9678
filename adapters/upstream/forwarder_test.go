package upstream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
)

// seen is what the fake Cursor received.
type seen struct {
	Method, Host, URI string
	Header            http.Header
	Body              string
}

// newFake starts a fake Cursor whose every request is recorded and answered
// by answer.
func newFake(answer http.HandlerFunc) (*upstreamtest.FakeCursor, <-chan seen) {
	got := make(chan seen, 16)
	fake, err := upstreamtest.NewFakeCursor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{Method: r.Method, Host: r.Host, URI: r.RequestURI, Header: r.Header.Clone(), Body: string(body)}
		answer(w, r)
	}))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(fake.Close)
	return fake, got
}

// forwarderFor builds a Forwarder that trusts fake; without opts.Dial it
// reaches fake directly as api2 and api3.cursor.sh, and without
// opts.Getenv it sees an empty environment.
func forwarderFor(fake *upstreamtest.FakeCursor, opts upstream.Options) *upstream.Forwarder {
	if opts.Dial == nil {
		opts.Dial = upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": fake.Addr, "api3.cursor.sh:443": fake.Addr})
	}
	opts.RootCAs = fake.Pool
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	fwd, err := upstream.New(opts, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(fwd.CloseIdleConnections)
	return fwd
}

// newForwarder is a fake Cursor and a Forwarder that reaches it directly.
func newForwarder(answer http.HandlerFunc, opts upstream.Options) (*upstream.Forwarder, <-chan seen, *upstreamtest.FakeCursor) {
	fake, got := newFake(answer)
	return forwarderFor(fake, opts), got, fake
}

func teapot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Answer", "yes")
	w.WriteHeader(http.StatusTeapot)
	_, _ = io.WriteString(w, "from cursor")
}

var _ = Describe("Forwarder.ServeHTTP", func() {
	It("passes method, path, query, headers and body to the original URL and the answer back", func() {
		fwd, got, _ := newForwarder(teapot, upstream.Options{})
		r := httptest.NewRequest(http.MethodPut, "http://keygate/aiserver.v1.AiService/Thing?x=1", strings.NewReader("payload"))
		r.Header.Set(upstream.HeaderUpstreamURL, "https://api3.cursor.sh/aiserver.v1.AiService/Thing?x=1")
		r.Header.Set("Authorization", "Bearer cursor-jwt")
		r.Header.Set("X-Cursor-Client-Version", "3.14.7")
		r.Header.Set("Connection", "X-Hop")
		r.Header.Set("X-Hop", "drop me")
		r.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
		w := httptest.NewRecorder()
		fwd.ServeHTTP(w, r)

		Expect(w.Code).To(Equal(http.StatusTeapot))
		Expect(w.Header().Get("X-Answer")).To(Equal("yes"))
		Expect(w.Body.String()).To(Equal("from cursor"))
		var s seen
		Expect(got).To(Receive(&s))
		Expect(s.Method).To(Equal(http.MethodPut))
		Expect(s.Host).To(Equal("api3.cursor.sh"))
		Expect(s.URI).To(Equal("/aiserver.v1.AiService/Thing?x=1"))
		Expect(s.Body).To(Equal("payload"))
		Expect(s.Header.Get("Authorization")).To(Equal("Bearer cursor-jwt"))
		Expect(s.Header.Get("X-Cursor-Client-Version")).To(Equal("3.14.7"))
		Expect(s.Header).NotTo(HaveKey("X-Hop"))
		Expect(s.Header).NotTo(HaveKey("Proxy-Authorization"))
		Expect(s.Header).NotTo(HaveKey(upstream.HeaderUpstreamURL))
	})

	It("refuses an original URL outside Cursor with 400 and sends nothing", func() {
		fwd, got, _ := newForwarder(teapot, upstream.Options{})
		r := httptest.NewRequest(http.MethodGet, "http://keygate/x", nil)
		r.Header.Set(upstream.HeaderUpstreamURL, "https://evil.example/x")
		w := httptest.NewRecorder()
		fwd.ServeHTTP(w, r)
		Expect(w.Code).To(Equal(http.StatusBadRequest))
		Expect(got).NotTo(Receive())
	})

	It("answers 502 when Cursor cannot be reached", func() {
		fwd, _, fake := newForwarder(teapot, upstream.Options{})
		fake.Close()
		w := httptest.NewRecorder()
		fwd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://keygate/x", nil))
		Expect(w.Code).To(Equal(http.StatusBadGateway))
	})

})

var _ = Describe("Forwarder.ServeBody", func() {
	It("sends a request whose body a handler already read, as the Cursor adapter does for a run that belongs to Cursor", func() {
		fwd, got, _ := newForwarder(teapot, upstream.Options{})
		r := httptest.NewRequest(http.MethodPost, "http://keygate/agent.v1.AgentService/RunSSE", strings.NewReader("run id"))
		r.Header.Set(upstream.HeaderUpstreamURL, "https://api2.cursor.sh/agent.v1.AgentService/RunSSE")
		body, err := io.ReadAll(r.Body)
		Expect(err).NotTo(HaveOccurred())
		w := httptest.NewRecorder()
		fwd.ServeBody(w, r, body)
		Expect(w.Code).To(Equal(http.StatusTeapot))
		Expect(got).To(Receive(And(HaveField("Body", "run id"), HaveField("URI", "/agent.v1.AgentService/RunSSE"))))
	})
})

var _ = Describe("Forwarder.RoundTrip", func() {
	It("sends an in-process request to the original URL it carries, for Connect clients", func() {
		fwd, got, _ := newForwarder(teapot, upstream.Options{})
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
			upstream.DefaultURL+"/aiserver.v1.BidiService/BidiAppend", strings.NewReader("speech"))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set(upstream.HeaderUpstreamURL, "https://api3.cursor.sh/aiserver.v1.BidiService/BidiAppend")
		resp, err := fwd.Client().Do(req)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(resp.Body.Close)
		Expect(resp.StatusCode).To(Equal(http.StatusTeapot))
		Expect(got).To(Receive(And(HaveField("Host", "api3.cursor.sh"), HaveField("Body", "speech"))))
		Expect(req.Header.Get(upstream.HeaderUpstreamURL)).NotTo(BeEmpty(), "the caller's request is left alone")
	})

	It("refuses a request for a host outside Cursor", func() {
		fwd, _, _ := newForwarder(teapot, upstream.Options{})
		req, _ := http.NewRequest(http.MethodGet, "https://evil.example/", nil)
		_, err := fwd.RoundTrip(req)
		Expect(err).To(MatchError(upstream.ErrForeignUpstream))
	})
})

var _ = Describe("upstream.New", func() {
	DescribeTable("rejects settings it could not honour",
		func(opts upstream.Options) {
			_, err := upstream.New(opts, zap.NewNop())
			Expect(err).To(HaveOccurred())
		},
		Entry("a base URL outside Cursor", upstream.Options{BaseURL: "https://example.com"}),
		Entry("an outbound proxy that is not an http(s) URL", upstream.Options{Proxy: "socks5://proxy:1080"}),
	)
})
