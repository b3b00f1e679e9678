package provider_test

import (
	"context"
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Client.Stream on a fill-in-the-middle protocol", func() {
	var (
		srv      *providertest.Server
		recorder *providertest.Recorder
		client   *provider.Client
	)

	BeforeEach(func() {
		srv = providertest.NewServer()
		DeferCleanup(srv.Close)
		DeferCleanup(srv.Release)
		recorder = providertest.NewRecorder()
		client = provider.New(provider.Options{Recorder: recorder})
	})

	call := func(kind llm.ProviderKind, path string) ports.ModelCall {
		return ports.ModelCall{CallID: "tab-1:0", RunID: "tab-1", Kind: callrecord.KindTab,
			Endpoint: ports.Endpoint{Kind: kind, URL: srv.URL + path, APIKey: apiKey},
			Request:  providertest.FillInRequest("fim-x")}
	}

	turn := providertest.Turn{ID: "cmpl-1", Model: "fim-x-2026", Text: []string{"a", " + ", "b"},
		Usage: providertest.Usage{Input: 40, Output: 3}}

	DescribeTable("streams the completion as text events, and its usage reaches the call record",
		func(kind llm.ProviderKind, path string, sse []byte) {
			srv.Enqueue(providertest.Stream(sse))
			s, err := client.Stream(context.Background(), call(kind, path))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			events, err := drain(s)
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.CheckGrammar(events)).To(Succeed())
			sum := providertest.Summarize(events)
			Expect(sum.Text).To(Equal("a + b"))
			Expect(sum.Finish).To(Equal(llm.FinishStop))

			got := srv.Requests()
			Expect(got).To(HaveLen(1))
			Expect(got[0].Path).To(Equal(path))
			Expect(got[0].Header.Get("Authorization")).To(Equal("Bearer " + apiKey))
			var body map[string]any
			Expect(json.Unmarshal(got[0].Body, &body)).To(Succeed())
			Expect(body).To(HaveKeyWithValue("prompt", providertest.FillInRequest("").FillIn.Prefix))
			Expect(body).To(HaveKeyWithValue("suffix", providertest.FillInRequest("").FillIn.Suffix))
			Expect(body).To(HaveKeyWithValue("stream", true))
			Expect(body).NotTo(HaveKey("messages"))

			rec, ok := recorder.Record("tab-1:0")
			Expect(ok).To(BeTrue())
			Expect(rec.Status).To(Equal(callrecord.StatusCompleted))
			Expect(rec.Finish).To(Equal(llm.FinishStop))
			Expect(rec.Model.ResponseModel).To(Equal("fim-x-2026"))
			Expect(rec.Usage.Input).To(BeEquivalentTo(40))
			Expect(rec.Usage.Output).To(BeEquivalentTo(3))
			Expect(rec.Timing.FirstText).NotTo(BeZero())
		},
		Entry("OpenAI completions with suffix", llm.ProviderOpenAICompletions, "/v1/completions", providertest.CompletionsSSE(turn)),
		Entry("Mistral FIM", llm.ProviderMistralFIM, "/v1/fim/completions", providertest.MistralSSE(turn)),
	)

	DescribeTable("classifies an error body like any other protocol's",
		func(kind llm.ProviderKind, path string) {
			for status, class := range map[int]llm.ErrorClass{
				http.StatusUnauthorized: llm.ErrorAuthorization, http.StatusTooManyRequests: llm.ErrorRateLimit,
				http.StatusBadRequest: llm.ErrorBadRequest, http.StatusServiceUnavailable: llm.ErrorTransient,
			} {
				srv.Enqueue(providertest.Reply{Status: status, Steps: []providertest.Step{{Data: []byte(`{"error":{"message":"model does not support suffix","type":"invalid_request_error"}}`)}}})
				_, err := client.Stream(context.Background(), call(kind, path))
				perr := providerError(err)
				Expect(perr.Class).To(Equal(class), "status %d", status)
				Expect(perr.Status).To(Equal(status))
			}
		},
		Entry("OpenAI completions with suffix", llm.ProviderOpenAICompletions, "/v1/completions"),
		Entry("Mistral FIM", llm.ProviderMistralFIM, "/v1/fim/completions"),
	)

	It("refuses a conversation before anything is sent, and a conversation protocol refuses a fill-in request", func() {
		c := call(llm.ProviderOpenAICompletions, "/v1/completions")
		c.Request = simpleRequest("fim-x")
		_, err := client.Stream(context.Background(), c)
		Expect(providerError(err).Class).To(Equal(llm.ErrorBadRequest))
		Expect(err.Error()).To(ContainSubstring("fill-in-the-middle"))
		_, err = client.Stream(context.Background(), call(llm.ProviderOpenAIChat, "/v1/chat/completions"))
		Expect(providerError(err).Class).To(Equal(llm.ErrorBadRequest))
		Expect(err.Error()).To(ContainSubstring("fill-in-the-middle"))
		Expect(srv.Requests()).To(BeEmpty())
	})
})
