package compatapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/compatapi"
	"keygate/app/gateway"
	"keygate/domain/llm"
	"keygate/ports"
)

// fakeGateway records each call and answers with one text event.
type fakeGateway struct{ calls []gateway.Call }

func (g *fakeGateway) Models(context.Context) ([]gateway.Model, error) { return nil, nil }

func (g *fakeGateway) Resolve(_ context.Context, name string) (gateway.Model, error) {
	return gateway.Model{ID: name, Name: name}, nil
}

func (g *fakeGateway) Stream(_ context.Context, c gateway.Call) (ports.ModelStream, gateway.Model, error) {
	g.calls = append(g.calls, c)
	return &events{evs: []llm.Event{{Kind: llm.EventStart}, {Kind: llm.EventTextStart}, {Kind: llm.EventTextDelta, Text: "ok"},
		{Kind: llm.EventTextEnd}, {Kind: llm.EventDone, Finish: llm.FinishStop}}, i: -1}, gateway.Model{ID: c.Model}, nil
}

type events struct {
	evs []llm.Event
	i   int
	// pace, when set, is the wait before each event; a stream with ctx
	// ends as a provider's does when the call's context ends.
	pace time.Duration
	ctx  context.Context
}

func (e *events) Next() bool {
	time.Sleep(e.pace)
	if e.ctx != nil && e.ctx.Err() != nil {
		return false
	}
	e.i++
	return e.i < len(e.evs)
}
func (e *events) Event() llm.Event { return e.evs[e.i] }
func (e *events) Err() error {
	if e.ctx != nil {
		return e.ctx.Err()
	}
	return nil
}
func (e *events) Close() error { return nil }

var _ = Describe("Who called, and in which session", func() {
	var (
		g   *fakeGateway
		url string
	)
	BeforeEach(func() {
		g = &fakeGateway{}
		mux := http.NewServeMux()
		for p, h := range compatapi.New(compatapi.Options{Gateway: g, Local: func(*http.Request) bool { return true }}).Routes() {
			mux.Handle(p, h)
		}
		ts := httptest.NewServer(mux)
		DeferCleanup(ts.Close)
		url = ts.URL
	})
	send := func(path, body string, headers ...string) {
		req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ": ")
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(raw))
	}
	const messages = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`

	DescribeTable("names the client from its user agent",
		func(ua, client string) {
			send("/v1/messages", messages, "User-Agent: "+ua)
			Expect(g.calls[0].Client).To(Equal(client))
		},
		Entry("Claude Code", "claude-cli/2.1.328 (external, sdk-cli)", "claude-code"),
		Entry("the Codex CLI", "codex_exec/0.169.0 (Ubuntu 24.4.0; x86_64) xterm", "codex"),
		Entry("opencode", "opencode/0.5.1 ai-sdk/provider-utils/3", "opencode"),
		Entry("anything else by its product token", "python-requests/2.32.3", "python-requests"),
		Entry("a product token of odd characters, kept printable and short", "we<ird>"+strings.Repeat("x", 80)+"/1", "weird"+strings.Repeat("x", 35)),
	)

	It("keys the session by Claude Code's session header", func() {
		send("/v1/messages", messages, "X-Claude-Code-Session-Id: s-1")
		Expect(g.calls[0].Session).To(Equal("s-1"))
	})

	It("keys the session by the thread of Codex's turn metadata, else the prompt cache key", func() {
		body := `{"model":"m","input":"hi","prompt_cache_key":"pck"}`
		send("/v1/responses", body, `x-codex-turn-metadata: {"thread_id":"th-1","turn_id":"t"}`)
		send("/v1/responses", body)
		Expect(g.calls[0].Session).To(Equal("th-1"))
		Expect(g.calls[1].Session).To(Equal("pck"))
	})

	It("refuses a body that is not the protocol's in its error shape", func() {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"messages":[]}`))
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(string(raw)).To(MatchJSON(`{"error":{"message":"invalid request: model is required","type":"invalid_request_error","code":null,"param":null}}`))
		Expect(g.calls).To(BeEmpty())
	})

	It("refuses a body over the bound", func() {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(`{"model":"m","x":"`+strings.Repeat("a", compatapi.MaxBody)+`"}`))
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(string(raw)).To(ContainSubstring(`"type":"invalid_request_error"`))
	})
})

// slowGateway answers with a stream that outlasts the listener's read
// timeout.
type slowGateway struct {
	fakeGateway
	// started, when set, hears of each call as it starts.
	started chan struct{}
}

func (g *slowGateway) Stream(ctx context.Context, c gateway.Call) (ports.ModelStream, gateway.Model, error) {
	if g.started != nil {
		g.started <- struct{}{}
	}
	st, m, err := g.fakeGateway.Stream(ctx, c)
	st.(*events).pace, st.(*events).ctx = 100*time.Millisecond, ctx
	return st, m, err
}

var _ = Describe("A streamed answer behind the listener's read timeout", func() {
	It("streams to its end though it lasts longer than the time allowed to read the request", func() {
		mux := http.NewServeMux()
		for p, h := range compatapi.New(compatapi.Options{Gateway: &slowGateway{}, Local: func(*http.Request) bool { return true }}).Routes() {
			mux.Handle(p, h)
		}
		ts := httptest.NewUnstartedServer(mux)
		ts.Config.ReadTimeout = 200 * time.Millisecond // the answer takes about 500 ms
		ts.Start()
		DeferCleanup(ts.Close)
		resp, err := http.Post(ts.URL+"/v1/messages", "application/json",
			strings.NewReader(`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		raw, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(And(ContainSubstring(`"text":"ok"`), ContainSubstring("message_stop")))
	})
})

var _ = Describe("Request bytes held at once", func() {
	It("refuses, in the client's shape, a request that would take the bytes held past the bound, and serves again once they are freed", func() {
		mux := http.NewServeMux()
		g := &slowGateway{started: make(chan struct{}, 4)}
		for p, h := range compatapi.New(compatapi.Options{Gateway: g, Local: func(*http.Request) bool { return true },
			MaxHeld: 300}).Routes() {
			mux.Handle(p, h)
		}
		ts := httptest.NewServer(mux)
		DeferCleanup(ts.Close)
		body := `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("x", 150) + `"}]}`
		post := func() (int, string) {
			resp, err := http.Post(ts.URL+"/v1/messages", "application/json", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			raw, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			return resp.StatusCode, string(raw)
		}
		first := make(chan int, 1)
		go func() {
			defer GinkgoRecover()
			status, _ := post()
			first <- status
		}()
		Eventually(g.started, 5*time.Second).Should(Receive(), "the first call holds its body while it streams, about 500 ms")
		status, raw := post()
		Expect(status).To(Equal(http.StatusServiceUnavailable))
		Expect(raw).To(ContainSubstring(`"type":"overloaded_error"`))
		Eventually(first, 5*time.Second).Should(Receive(Equal(http.StatusOK)))
		Eventually(func() int { status, _ := post(); return status }, 5*time.Second).Should(Equal(http.StatusOK), "the first request's bytes were freed")
	})
})
