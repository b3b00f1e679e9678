package bedrock_test

import (
	"bytes"
	"errors"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/bedrock"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

const claude = "us.anthropic.claude-sonnet-4-20250514-v1:0"

// decode runs an event-stream body through p's frames and a fresh decoder.
func decode(p protocol.Protocol, body []byte) ([]llm.Event, error) {
	dec := p.NewDecoder()
	f := p.Frames(bytes.NewReader(body))
	var events []llm.Event
	for !dec.Ended() {
		ev, err := f.Next()
		if errors.Is(err, io.EOF) {
			return dec.End(events)
		}
		if err != nil {
			return events, err
		}
		if events, err = dec.Decode(ev, events); err != nil {
			return events, err
		}
	}
	return events, nil
}

// conversation is providertest.Conversation on a Claude inference profile.
func conversation(kind llm.ProviderKind) []llm.Request {
	reqs := providertest.Conversation(kind)
	for i := range reqs {
		reqs[i].Model = claude
	}
	return reqs
}

var _ = Describe("Bedrock Converse", func() {
	p := bedrock.Converse()

	It("gives the same conversation byte-identical prefixes turn after turn, with cache points after the system prompt and the tools", func() {
		var prev []byte
		for i, req := range conversation(p.Kind) {
			body, err := p.AppendRequest(nil, req, protocol.RequestOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Count(body, []byte(`{"cachePoint":{"type":"default"}}`))).To(Equal(2))
			Expect(string(body)).To(ContainSubstring(`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":16384}}`))
			if prev != nil {
				Expect(bytes.HasPrefix(body, bytes.TrimSuffix(prev, []byte("]}")))).To(BeTrue(), "cycle %d extends cycle %d", i, i-1)
			}
			prev = body
		}
		Expect(string(prev)).To(ContainSubstring(`{"reasoningContent":{"reasoningText":{"text":"The panic is probably a nil map.","signature":"sig-1"}}}`))
		Expect(string(prev)).To(ContainSubstring(`"status":"error"`))
		Expect(string(prev)).To(ContainSubstring(`{"image":{"format":"png","source":{"bytes":"`))
	})

	It("writes no cache point for a model Bedrock does not cache for", func() {
		reqs := providertest.Conversation(p.Kind)
		req := reqs[len(reqs)-1]
		req.Model = "meta.llama3-3-70b-instruct-v1:0"
		body, err := p.AppendRequest(nil, req, protocol.RequestOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).NotTo(ContainSubstring("cachePoint"))
		Expect(string(body)).NotTo(ContainSubstring("additionalModelRequestFields"), "reasoning is switched on per family")
	})

	It("decodes reasoning with its signature, text and a streamed tool call, with cache usage", func() {
		events, err := decode(p, providertest.BedrockConverse(providertest.Turn{
			Thinking: []string{"Read ", "it."}, Signature: "c2lnLWJlZHJvY2s=", Text: []string{"Reading."},
			Calls: []providertest.Call{{ID: "tooluse_1", Name: "read_file", Arguments: []string{`{"path":`, `"a.go"}`}}},
			Usage: providertest.Usage{Input: 10, CacheRead: 2000, CacheWrite: 30, Output: 7}}))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Thinking).To(Equal("Read it."))
		Expect(s.Text).To(Equal("Reading."))
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].CallID).To(Equal("tooluse_1"))
		Expect(s.Calls[0].Arguments).To(Equal(`{"path":"a.go"}`))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.CacheRead, s.Usage.CacheWrite, s.Usage.Output}).To(Equal([]int64{10, 2000, 30, 7}))
		Expect(s.Replay).NotTo(BeNil())
		Expect(s.Replay.Kind).To(Equal(llm.ProviderBedrockConverse))
		Expect(string(s.Replay.Value)).To(Equal(`{"reasoning":[{"text":"Read it.","signature":"c2lnLWJlZHJvY2s="}]}`))
	})

	It("classifies the stream's exceptions", func() {
		_, err := decode(p, providertest.BedrockException("throttlingException", "Too many requests, please wait before trying again."))
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorRateLimit))
		_, err = decode(p, append(providertest.BedrockEvent("messageStart", []byte(`{"role":"assistant"}`)),
			providertest.BedrockException("modelStreamErrorException", "Model stream error")...))
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
	})

	It("is a transient failure when the stream ends before messageStop", func() {
		body := providertest.BedrockConverse(providertest.Turn{Text: []string{"cut"}})
		events, err := decode(p, body[:len(body)/2])
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(events).NotTo(ContainElement(HaveField("Kind", llm.EventDone)))
	})
})

var _ = Describe("Anthropic on Bedrock", func() {
	p := bedrock.Anthropic()

	It("keeps Anthropic's body and cache breakpoints, with anthropic_version first and no model or stream, the part before the messages the same every turn", func() {
		var head []byte
		for _, req := range conversation(p.Kind) {
			body, err := p.AppendRequest(nil, req, protocol.RequestOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(string(body)).To(HavePrefix(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":8192,"system":[`))
			Expect(string(body)).To(ContainSubstring(`"cache_control":{"type":"ephemeral"}`))
			i := bytes.Index(body, []byte(`"messages":`))
			Expect(i).To(BeNumerically(">", 0))
			if head != nil {
				Expect(body[:i]).To(Equal(head))
			}
			head = body[:i]
		}
	})

	It("decodes the base64 Anthropic events of the chunks", func() {
		events, err := decode(p, providertest.BedrockAnthropic(providertest.Turn{ID: "msg_1", Model: "claude-x",
			Text: []string{"Hi ", "there."}, Usage: providertest.Usage{Input: 3, CacheRead: 100, Output: 2}}))
		Expect(err).NotTo(HaveOccurred())
		s := providertest.Summarize(events)
		Expect(s.Text).To(Equal("Hi there."))
		Expect(s.Usage.CacheRead).To(BeEquivalentTo(100))
		Expect(s.Finish).To(Equal(llm.FinishStop))
	})
})
