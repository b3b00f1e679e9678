package provider_test

import (
	"bytes"
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Client.Stream cancellation, stalls and detailed recording", func() {
	var (
		srv      *providertest.Server
		recorder *providertest.Recorder
	)

	BeforeEach(func() {
		srv = providertest.NewServer()
		DeferCleanup(srv.Close)
		DeferCleanup(srv.Release)
		recorder = providertest.NewRecorder()
	})

	call := func(kind llm.ProviderKind, url string) ports.ModelCall {
		return ports.ModelCall{CallID: "c1", RunID: "r1", ConversationID: "conv",
			Endpoint: ports.Endpoint{Kind: kind, URL: url, APIKey: apiKey}, Request: simpleRequest("model-x")}
	}

	stalledAfter := func(body []byte, n int) providertest.Reply {
		steps := providertest.Events(body)
		return providertest.Reply{Steps: append(steps[:n:n], providertest.Step{Stall: true})}
	}

	It("closes the connection promptly when the context is cancelled mid-stream", func() {
		srv.Enqueue(stalledAfter(providertest.AnthropicSSE(providertest.Turn{Text: providertest.Words("one two three")}), 4))
		client := provider.New(provider.Options{Recorder: recorder})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := client.Stream(ctx, call(llm.ProviderAnthropic, srv.URL+"/v1/messages"))
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		var texts []string
		for s.Next() {
			if e := s.Event(); e.Kind == llm.EventTextDelta {
				texts = append(texts, e.Text)
				cancel() // the server is stalled now; only the cancel can end the read
			}
		}
		Expect(texts).To(Equal([]string{"one "}))
		Expect(s.Err()).To(MatchError(context.Canceled))
		Eventually(srv.Gone()).Should(Receive(), "the server saw the connection close")
		rec, _ := recorder.Record("c1")
		Expect(rec.Status).To(Equal(callrecord.StatusCancelled))
	})

	It("stops waiting for headers when the context is cancelled", func() {
		srv.Enqueue(providertest.Reply{Steps: []providertest.Step{{Stall: true}}})
		client := provider.New(provider.Options{Recorder: recorder})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			defer GinkgoRecover()
			Eventually(srv.Requests).Should(HaveLen(1))
			cancel()
		}()
		_, err := client.Stream(ctx, call(llm.ProviderOpenAIChat, srv.URL+"/v1/chat/completions"))
		Expect(err).To(MatchError(context.Canceled))
		Eventually(srv.Gone()).Should(Receive())
		rec, _ := recorder.Record("c1")
		Expect(rec.Status).To(Equal(callrecord.StatusCancelled))
	})

	It("fails a stream idle past the timeout as transient and closes the connection", func() {
		srv.Enqueue(stalledAfter(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("a b c")}), 2))
		client := provider.New(provider.Options{Recorder: recorder, IdleTimeout: 50 * time.Millisecond})
		s, err := client.Stream(context.Background(), call(llm.ProviderOpenAIChat, srv.URL+"/v1/chat/completions"))
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		events, err := drain(s)
		Expect(providertest.Summarize(events).Text).To(Equal("a "))
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(perr.Message).To(ContainSubstring("idle timeout"))
		Eventually(srv.Gone()).Should(Receive())
		rec, _ := recorder.Record("c1")
		Expect(rec.Status).To(Equal(callrecord.StatusError))
		Expect(rec.ErrorClass).To(Equal(llm.ErrorTransient))
	})

	It("applies the idle timeout to the wait for headers too", func() {
		srv.Enqueue(providertest.Reply{Steps: []providertest.Step{{Stall: true}}})
		client := provider.New(provider.Options{IdleTimeout: 50 * time.Millisecond})
		_, err := client.Stream(context.Background(), call(llm.ProviderOpenAIResponses, srv.URL+"/v1/responses"))
		Expect(providerError(err).Class).To(Equal(llm.ErrorTransient))
		Expect(err.Error()).To(ContainSubstring("idle timeout"))
	})

	It("records a stream closed before Done as cancelled", func() {
		srv.Enqueue(stalledAfter(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("a b")}), 2))
		client := provider.New(provider.Options{Recorder: recorder})
		s, err := client.Stream(context.Background(), call(llm.ProviderOpenAIChat, srv.URL+"/v1/chat/completions"))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Next()).To(BeTrue())
		Expect(s.Close()).To(Succeed())
		Expect(s.Close()).To(Succeed())
		Eventually(srv.Gone()).Should(Receive())
		rec, _ := recorder.Record("c1")
		Expect(rec.Status).To(Equal(callrecord.StatusCancelled))
	})

	It("records the user whose turn made the call, and no user outside a turn", func() {
		for _, c := range []struct {
			ctx  context.Context
			want string
		}{
			{identity.NewContext(context.Background(), identity.Identity{UserID: "ada"}), "ada"},
			{context.Background(), ""},
		} {
			srv.Enqueue(providertest.Reply{Steps: providertest.Events(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("a")}))})
			client := provider.New(provider.Options{Recorder: recorder})
			s, err := client.Stream(c.ctx, call(llm.ProviderOpenAIChat, srv.URL+"/v1/chat/completions"))
			Expect(err).NotTo(HaveOccurred())
			for s.Next() {
			}
			Expect(s.Close()).To(Succeed())
			rec, _ := recorder.Record("c1")
			Expect(rec.UserID).To(Equal(c.want))
			Expect(rec.Status).To(Equal(callrecord.StatusCompleted))
		}
	})

	Describe("in detailed mode", func() {
		var body []byte

		BeforeEach(func() {
			body = providertest.ResponsesSSE(providertest.Turn{Text: providertest.Words("all good here")})
			srv.Enqueue(providertest.Stream(body))
			client := provider.New(provider.Options{Recorder: recorder, Detailed: func() bool { return true }})
			c := call(llm.ProviderOpenAIResponses, srv.URL+"/v1/responses?key="+apiKey+"&api-version=1")
			c.Endpoint.Headers = map[string]string{"X-Team": "core", "Proxy-Authorization": "Basic " + apiKey}
			s, err := client.Stream(context.Background(), c)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			_, err = drain(s)
			Expect(err).NotTo(HaveOccurred())
		})

		It("keeps the request without any credential in headers or URL", func() {
			req, ok := recorder.RequestOf("c1")
			Expect(ok).To(BeTrue())
			Expect(req.URL).NotTo(ContainSubstring(apiKey))
			Expect(req.URL).To(ContainSubstring("api-version=1"))
			var names []string
			for _, h := range req.Headers {
				names = append(names, strings.ToLower(h.Name))
				Expect(h.Value).NotTo(ContainSubstring(apiKey))
			}
			Expect(names).To(ContainElements("content-type", "x-team"))
			Expect(names).NotTo(ContainElements("authorization", "proxy-authorization"))
			Expect(req.Body).To(Equal(srv.Requests()[0].Body))
			rec, _ := recorder.Record("c1")
			Expect(rec.Model.RequestURL).NotTo(ContainSubstring(apiKey))
			Expect(rec.Detailed).To(BeTrue())
		})

		It("keeps the raw response chunks in order with their offsets", func() {
			chunks := recorder.ChunksOf("c1")
			Expect(chunks).NotTo(BeEmpty())
			var all bytes.Buffer
			for i, ch := range chunks {
				Expect(ch.Seq).To(Equal(i))
				if i > 0 {
					Expect(ch.Offset).To(BeNumerically(">=", chunks[i-1].Offset))
				}
				all.Write(ch.Data)
			}
			Expect(all.Bytes()).To(Equal(body))
		})
	})
})
