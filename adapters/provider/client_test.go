package provider_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Client.Stream", func() {
	var (
		srv      *providertest.Server
		recorder *providertest.Recorder
		client   *provider.Client
		detailed bool
	)

	BeforeEach(func() {
		srv = providertest.NewServer()
		DeferCleanup(srv.Close)
		DeferCleanup(srv.Release)
		recorder = providertest.NewRecorder()
		detailed = false
		client = provider.New(provider.Options{Recorder: recorder, Detailed: func() bool { return detailed }})
	})

	call := func(kind llm.ProviderKind, path string) ports.ModelCall {
		return ports.ModelCall{CallID: "run-1:0", RunID: "run-1", ConversationID: "conv-42", ProviderCallIndex: 0,
			Endpoint: ports.Endpoint{Kind: kind, URL: srv.URL + path, APIKey: apiKey},
			Request:  simpleRequest("model-x")}
	}

	turn := providertest.Turn{ID: "resp-1", Model: "model-x-2026-01-01", Thinking: []string{"Hm, ", "files."},
		Signature: "sig", Text: providertest.Words("Reading two files."),
		Calls: []providertest.Call{
			{ID: "call_1", Name: "read_file", Arguments: []string{`{"path":`, `"a.go"}`}},
			{ID: "call_2", Name: "read_file", Arguments: []string{`{"path":"b.go"}`}},
		},
		Usage: providertest.Usage{Input: 10, CacheRead: 90, Output: 20, Reasoning: 5}}

	DescribeTable("streams a scripted turn and records the call",
		func(kind llm.ProviderKind, path string, auth func(http.Header)) {
			srv.Enqueue(providertest.Stream(render(kind, turn)))
			s, err := client.Stream(context.Background(), call(kind, path))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			events, err := drain(s)
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.CheckGrammar(events)).To(Succeed())
			sum := providertest.Summarize(events)
			Expect(sum.Text).To(Equal("Reading two files."))
			Expect(sum.Thinking).To(Equal("Hm, files."))
			Expect(sum.Calls).To(HaveLen(2))
			Expect(sum.Calls[1].Arguments).To(Equal(`{"path":"b.go"}`))
			Expect(sum.Finish).To(Equal(llm.FinishToolUse))

			got := srv.Requests()
			Expect(got).To(HaveLen(1))
			Expect(got[0].Path).To(Equal(path))
			Expect(got[0].Header.Get("Content-Type")).To(Equal("application/json"))
			auth(got[0].Header)

			rec, ok := recorder.Record("run-1:0")
			Expect(ok).To(BeTrue())
			Expect(rec.Status).To(Equal(callrecord.StatusCompleted))
			Expect(rec.Finish).To(Equal(llm.FinishToolUse))
			Expect(rec.HTTPStatus).To(Equal(200))
			Expect(rec.Model.ResponseModel).To(Equal("model-x-2026-01-01"))
			Expect(rec.Model.ModelID).To(Equal("model-x"))
			Expect(rec.Usage.CacheRead).To(BeEquivalentTo(90))
			Expect(rec.Usage.Output).To(BeEquivalentTo(20))
			Expect(rec.RequestBytes).To(BeEquivalentTo(len(got[0].Body)))
			Expect(rec.ResponseBytes).To(BeEquivalentTo(len(render(kind, turn))))
			Expect(rec.EventCount).To(BeNumerically(">", 5))
			t := rec.Timing
			Expect(t.RequestStarted).NotTo(BeZero())
			Expect(t.ResponseHeaders).To(BeTemporally(">=", t.RequestStarted))
			Expect(t.FirstEvent).To(BeTemporally(">=", t.ResponseHeaders))
			Expect(t.FirstText).To(BeTemporally(">=", t.FirstEvent))
			Expect(t.Finished).To(BeTemporally(">=", t.FirstText))
		},
		Entry("OpenAI Chat with a bearer token", llm.ProviderOpenAIChat, "/v1/chat/completions", func(h http.Header) {
			Expect(h.Get("Authorization")).To(Equal("Bearer " + apiKey))
		}),
		Entry("OpenAI Responses with a bearer token", llm.ProviderOpenAIResponses, "/v1/responses", func(h http.Header) {
			Expect(h.Get("Authorization")).To(Equal("Bearer " + apiKey))
		}),
		Entry("Anthropic with x-api-key and anthropic-version", llm.ProviderAnthropic, "/v1/messages", func(h http.Header) {
			Expect(h.Get("X-Api-Key")).To(Equal(apiKey))
			Expect(h.Get("Anthropic-Version")).To(Equal("2023-06-01"))
			Expect(h.Get("Authorization")).To(BeEmpty())
		}),
		Entry("Gemini with x-goog-api-key", llm.ProviderGemini, "/v1beta/models/model-x:streamGenerateContent", func(h http.Header) {
			Expect(h.Get("X-Goog-Api-Key")).To(Equal(apiKey))
			Expect(h.Get("Authorization")).To(BeEmpty())
		}),
	)

	It("stamps the call's kind on its record, Agent when the call names none", func() {
		for _, kind := range []callrecord.Kind{callrecord.KindTab, ""} {
			srv.Enqueue(providertest.Stream(render(llm.ProviderOpenAIChat, turn)))
			c := call(llm.ProviderOpenAIChat, "/v1/chat/completions")
			c.Kind = kind
			s, err := client.Stream(context.Background(), c)
			Expect(err).NotTo(HaveOccurred())
			_, err = drain(s)
			Expect(err).NotTo(HaveOccurred())
			s.Close()
			rec, ok := recorder.Record("run-1:0")
			Expect(ok).To(BeTrue())
			Expect(rec.Kind).To(Equal(kind.Effective()))
		}
		rec, _ := recorder.Record("run-1:0")
		Expect(rec.Kind).To(Equal(callrecord.KindAgent))
	})

	It("renders the conversation id into custom headers and extra parameters", func() {
		srv.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"ok"}})))
		c := call(llm.ProviderOpenAIChat, "/v1/chat/completions")
		c.Endpoint.Headers = map[string]string{"X-Session": "s-{{SessionId}}"}
		c.Endpoint.ExtraParams = []byte(`{"user":"{{SessionId}}","temperature":0}`)
		s, err := client.Stream(context.Background(), c)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(err).NotTo(HaveOccurred())
		got := srv.Requests()[0]
		Expect(got.Header.Get("X-Session")).To(Equal("s-conv-42"))
		var body map[string]json.RawMessage
		Expect(json.Unmarshal(got.Body, &body)).To(Succeed())
		Expect(string(body["user"])).To(Equal(`"conv-42"`))
		Expect(string(body["prompt_cache_key"])).To(Equal(`"conv-1"`))
	})

	It("rejects extra parameters that replace a reserved field before sending anything", func() {
		c := call(llm.ProviderOpenAIChat, "/v1/chat/completions")
		c.Endpoint.ExtraParams = []byte(`{"messages":[]}`)
		_, err := client.Stream(context.Background(), c)
		Expect(providerError(err).Class).To(Equal(llm.ErrorBadRequest))
		Expect(srv.Requests()).To(BeEmpty())
	})

	It("calls an Azure deployment URL verbatim with the api-key header", func() {
		srv.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"ok"}})))
		c := call(llm.ProviderOpenAIChat, "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21")
		// Loopback stands in for the Azure host; the quirk is chosen by host,
		// so use a client whose transport dials the fake server for it.
		c.Endpoint.URL = "https://acme.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"
		azure := provider.New(provider.Options{HTTP: &http.Client{Transport: rewriteTo(srv.URL)}, Recorder: recorder})
		s, err := azure.Stream(context.Background(), c)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(err).NotTo(HaveOccurred())
		got := srv.Requests()[0]
		Expect(got.Path).To(Equal("/openai/deployments/gpt4o/chat/completions"))
		Expect(got.Query).To(Equal("api-version=2024-10-21"))
		Expect(got.Header.Get("Api-Key")).To(Equal(apiKey))
		Expect(got.Header.Get("Authorization")).To(BeEmpty())
	})

	// The client's clock is fixed here, so an HTTP-date Retry-After gives an
	// exact wait however long the machine takes to reach the spec.
	fixedNow := time.Date(2026, time.November, 30, 12, 0, 0, 0, time.UTC)

	DescribeTable("classifies a non-2xx answer and records it",
		func(reply providertest.Reply, class llm.ErrorClass, retryAfter time.Duration) {
			srv.Enqueue(reply)
			fixed := provider.New(provider.Options{Recorder: recorder, Now: func() time.Time { return fixedNow }})
			_, err := fixed.Stream(context.Background(), call(llm.ProviderOpenAIResponses, "/v1/responses"))
			perr := providerError(err)
			Expect(perr.Class).To(Equal(class))
			Expect(perr.RetryAfter).To(Equal(retryAfter))
			Expect(perr.Message).NotTo(ContainSubstring(apiKey))
			rec, _ := recorder.Record("run-1:0")
			Expect(rec.Status).To(Equal(callrecord.StatusError))
			Expect(rec.ErrorClass).To(Equal(class))
			Expect(rec.HTTPStatus).To(Equal(reply.Status))
		},
		Entry("429 with Retry-After seconds is a rate limit with that wait", providertest.RateLimited(7*time.Second), llm.ErrorRateLimit, 7*time.Second),
		Entry("429 with Retry-After as an HTTP date", providertest.Status(429, `{}`, "Retry-After", fixedNow.Add(30*time.Second).Format(http.TimeFormat)), llm.ErrorRateLimit, 30*time.Second),
		Entry("429 with x-ratelimit-reset-requests 1m30s", providertest.Status(429, `{}`, "X-Ratelimit-Reset-Requests", "1m30s", "X-Ratelimit-Reset-Tokens", "250ms"), llm.ErrorRateLimit, 90*time.Second),
		Entry("401 is authorization", providertest.Status(401, `{"error":{"message":"Incorrect API key provided: sk-test-SECRET-0123456789"}}`), llm.ErrorAuthorization, time.Duration(0)),
		Entry("403 is authorization", providertest.Status(403, `{}`), llm.ErrorAuthorization, time.Duration(0)),
		Entry("400 is a bad request", providertest.Status(400, `{"error":{"message":"Unknown parameter"}}`), llm.ErrorBadRequest, time.Duration(0)),
		Entry("400 saying the prompt is too long is a context overflow", providertest.Status(400, `{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`), llm.ErrorContextOverflow, time.Duration(0)),
		Entry("408 is transient", providertest.Status(408, `{}`), llm.ErrorTransient, time.Duration(0)),
		Entry("500 is transient", providertest.Status(500, `{}`), llm.ErrorTransient, time.Duration(0)),
		Entry("502 is transient", providertest.Status(502, `bad gateway`), llm.ErrorTransient, time.Duration(0)),
		Entry("503 is transient and keeps its Retry-After", providertest.Status(503, `{}`, "Retry-After", "3"), llm.ErrorTransient, 3*time.Second),
	)

	It("retries Kimi's sporadic gateway 400 as transient", func() {
		srv.Enqueue(providertest.Status(400, `{"error":{"message":"Invalid request for the selected model"}}`))
		c := call(llm.ProviderOpenAIChat, "/v1/chat/completions")
		c.Request.Model = "kimi-k2.6"
		_, err := client.Stream(context.Background(), c)
		Expect(providerError(err).Class).To(Equal(llm.ErrorTransient))
	})

	It("ends a stream that breaks off without Done with a protocol error", func() {
		body := providertest.ChatSSE(providertest.Turn{Text: []string{"partial"}})
		srv.Enqueue(providertest.Stream(body[:strings.Index(string(body), `"finish_reason":"stop"`)-100]))
		s, err := client.Stream(context.Background(), call(llm.ProviderOpenAIChat, "/v1/chat/completions"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(providerError(err).Class).To(Equal(llm.ErrorProtocol))
		rec, _ := recorder.Record("run-1:0")
		Expect(rec.Status).To(Equal(callrecord.StatusError))
	})

	It("fails invalid UTF-8 in the stream as a clear protocol error", func() {
		srv.Enqueue(providertest.Reply{Steps: []providertest.Step{{Data: []byte("data: {\"id\":\"\xff\xfe\"}\n\n")}}})
		s, err := client.Stream(context.Background(), call(llm.ProviderOpenAIChat, "/v1/chat/completions"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorProtocol))
		Expect(perr.Message).To(ContainSubstring("SSE UTF-8 error"))
	})

	It("fails a malformed data frame as a JSON protocol error", func() {
		srv.Enqueue(providertest.Reply{Steps: []providertest.Step{{Data: []byte("event: message_start\ndata: {\"type\":\"message_start\",\n\n")}}})
		s, err := client.Stream(context.Background(), call(llm.ProviderAnthropic, "/v1/messages"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(providerError(err).Class).To(Equal(llm.ErrorProtocol))
	})

	It("delivers an in-band error under HTTP 200 as a classified error", func() {
		srv.Enqueue(providertest.Stream(providertest.AnthropicError("rate_limit_error", "Number of requests has exceeded your rate limit")))
		s, err := client.Stream(context.Background(), call(llm.ProviderAnthropic, "/v1/messages"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(providerError(err).Class).To(Equal(llm.ErrorRateLimit))
	})

	It("turns a connection dropped mid-stream into a transient error", func() {
		body := providertest.ResponsesSSE(providertest.Turn{Text: providertest.Words("a b c d")})
		steps := providertest.Events(body)
		srv.Enqueue(providertest.Reply{Steps: append(steps[:3:3], providertest.Step{Disconnect: true})})
		s, err := client.Stream(context.Background(), call(llm.ProviderOpenAIResponses, "/v1/responses"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = drain(s)
		Expect(providerError(err).Class).To(Equal(llm.ErrorTransient))
	})
	It("keeps a key in the URL out of a transport error and its cause", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		closed := "http://" + ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		c := call(llm.ProviderOpenAIChat, "")
		c.Endpoint.URL = closed + "/v1/chat/completions?key=" + apiKey
		_, err = client.Stream(context.Background(), c)
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(err.Error()).NotTo(ContainSubstring(apiKey))
		Expect(perr.Err).To(HaveOccurred())
		Expect(perr.Err.Error()).NotTo(ContainSubstring(apiKey))
	})
})
