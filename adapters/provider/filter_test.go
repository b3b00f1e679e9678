package provider_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Client.Stream replaying Azure's documented streams (testdata/SOURCES.md §4)", func() {
	var (
		srv      *providertest.Server
		recorder *providertest.Recorder
		client   *provider.Client
	)
	BeforeEach(func() {
		srv = providertest.NewServer()
		DeferCleanup(srv.Close)
		recorder = providertest.NewRecorder()
		client = provider.New(provider.Options{Recorder: recorder})
	})

	replay := func(name string) []llm.Event {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		Expect(err).NotTo(HaveOccurred())
		srv.Enqueue(providertest.Stream(body))
		s, err := client.Stream(context.Background(), ports.ModelCall{CallID: "c1", RunID: "r1", ConversationID: "conv",
			Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: srv.URL + "/v1/chat/completions", APIKey: apiKey},
			Request:  simpleRequest("gpt-35-turbo")})
		Expect(err).NotTo(HaveOccurred())
		events, err := drain(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())
		return events
	}

	It("marks the call record of an answer Azure's filter blocked as filtered, with the filter's category, never completed", func() {
		events := replay("openai-chat-azure-content-filter-docs.sse")
		done := events[len(events)-1]
		Expect(done.Kind).To(Equal(llm.EventDone))
		Expect(done.Finish).To(Equal(llm.FinishContentFilter))
		rec, ok := recorder.Record("c1")
		Expect(ok).To(BeTrue())
		Expect(rec.Status).To(Equal(callrecord.StatusError))
		Expect(rec.Finish).To(Equal(llm.FinishContentFilter))
		Expect(rec.ErrorClass).To(Equal(llm.ErrorContentFilter))
		Expect(rec.ErrorMessage).To(ContainSubstring("protected_material_text"))
	})

	It("records the response id and model of the first chunk that carries them, not of Azure's empty first chunk", func() {
		replay("openai-chat-azure-empty-first-id-docs.sse")
		rec, _ := recorder.Record("c1")
		Expect(rec.Status).To(Equal(callrecord.StatusCompleted))
		Expect(rec.Model.ResponseID).To(Equal("chatcmpl-7rCNsVeZy0PGnX3H6jK8STps5nZUY"))
		Expect(rec.Model.ResponseModel).To(Equal("gpt-35-turbo"))

		replay("openai-chat-azure-content-filter-docs.sse")
		rec, _ = recorder.Record("c1")
		Expect(rec.Model.ResponseID).To(Equal("chatcmpl-8JCbt5d4luUIhYCI7YH4dQK7hnHx2"))
	})
})
