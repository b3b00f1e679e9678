package fim_test

import (
	"encoding/json"
	"math"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/fim"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

func fields(body []byte) map[string]any {
	var m map[string]any
	ExpectWithOffset(1, json.Unmarshal(body, &m)).To(Succeed(), "%s", body)
	return m
}

var _ = Describe("A fill-in-the-middle request body", func() {
	bare := func() llm.Request {
		return llm.Request{Model: "m", FillIn: &llm.FillIn{Prefix: "x = ", Suffix: ""}}
	}

	DescribeTable("writes the prefix, the suffix and a cap, and leaves temperature and stop to the provider when unset",
		func(p protocol.Protocol) {
			body, err := p.AppendRequest(nil, bare(), protocol.RequestOptions{})
			Expect(err).NotTo(HaveOccurred())
			m := fields(body)
			Expect(m).To(HaveKeyWithValue("prompt", "x = "))
			Expect(m).To(HaveKeyWithValue("suffix", ""))
			Expect(m).To(HaveKeyWithValue("max_tokens", BeNumerically("==", fim.DefaultMaxTokens)))
			Expect(m).To(HaveKeyWithValue("stream", true))
			Expect(m).NotTo(HaveKey("temperature"))
			Expect(m).NotTo(HaveKey("stop"))
		},
		Entry("completions", fim.Completions()),
		Entry("Mistral", fim.Mistral()),
	)

	It("asks the completions endpoint for usage on the last chunk, and Mistral not (it always sends it)", func() {
		body, err := fim.AppendCompletions(nil, bare(), protocol.RequestOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(fields(body)).To(HaveKeyWithValue("stream_options", map[string]any{"include_usage": true}))
		body, err = fim.AppendMistral(nil, bare(), protocol.RequestOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(fields(body)).NotTo(HaveKey("stream_options"))
	})

	It("gives the same bytes for the same request, and appends to what dst holds", func() {
		req := providertest.FillInRequest("m")
		a, err := fim.AppendCompletions([]byte("prefix:"), req, protocol.RequestOptions{})
		Expect(err).NotTo(HaveOccurred())
		b, err := fim.AppendCompletions(nil, providertest.FillInRequest("m"), protocol.RequestOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(a)).To(Equal("prefix:" + string(b)))
	})

	It("lets a model's extra parameters set max_tokens, temperature and stop in place, and appends the rest", func() {
		extras, err := wire.ParseExtras([]byte(`{"top_p":0.9,"temperature":0.3,"max_tokens":32}`), []string{"model", "prompt", "suffix", "stream"})
		Expect(err).NotTo(HaveOccurred())
		body, err := fim.AppendMistral(nil, providertest.FillInRequest("m"), protocol.RequestOptions{Extras: extras})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(MatchRegexp(`"max_tokens":32,"temperature":0.3,"stop":\[.*\],"stream":true,"top_p":0.9}$`))
	})

	It("refuses a temperature JSON cannot carry", func() {
		req := bare()
		nan := math.NaN()
		req.FillIn.Temperature = &nan
		_, err := fim.AppendCompletions(nil, req, protocol.RequestOptions{})
		Expect(err).To(MatchError(ContainSubstring("temperature")))
	})

	DescribeTable("refuses a conversation, and a fill-in request that carries one beside it",
		func(req llm.Request) {
			for _, p := range []protocol.Protocol{fim.Completions(), fim.Mistral()} {
				_, err := p.AppendRequest(nil, req, protocol.RequestOptions{})
				Expect(err).To(MatchError(protocol.ErrWrongShape), "%s", p.Kind)
				Expect(err.Error()).To(ContainSubstring("fill-in-the-middle"))
			}
		},
		Entry("no FillIn", llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}}}}),
		Entry("FillIn with instructions", llm.Request{Model: "m", Instructions: "be brief", FillIn: &llm.FillIn{Prefix: "a"}}),
		Entry("FillIn with tools", llm.Request{Model: "m", Tools: []llm.Tool{{Name: "t"}}, FillIn: &llm.FillIn{Prefix: "a"}}),
	)
})
