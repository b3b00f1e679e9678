package provider_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	"keygate/ports"
)

// protocolFixture is what one registered protocol must do, checked against
// the recorded corpus in testdata. A protocol without an entry here fails
// the registry specs: registering one means recording its fixtures too.
type protocolFixture struct {
	// urls maps a configured base to the request URL derived from it.
	urls map[string]string
	// auth are the headers of a call to a plain endpoint; list those of a
	// model listing at https://api.example.com/v1/models.
	auth, list http.Header
	// signs marks a cloud protocol: it authorises calls with Sign and lists
	// models with Models.Discover, with the account settings of its Cloud.
	signs bool
	// golden is the request body of providertest.Conversation's last cycle,
	// or of providertest.FillInRequest for a fill-in protocol.
	golden string
	// stream is a recorded response and what decoding it must give.
	stream      string
	text        string
	finish      llm.FinishReason
	id, model   string
	usageFields llm.UsageFields
}

var fixtures = map[llm.ProviderKind]protocolFixture{
	llm.ProviderOpenAIChat: {
		urls: map[string]string{
			"https://api.example.com":         "https://api.example.com/v1/chat/completions",
			"https://api.example.com/v1/":     "https://api.example.com/v1/chat/completions",
			"https://gw.example.com/api/v4":   "https://gw.example.com/api/v4/chat/completions",
			"https://gw.example.com/coding/":  "https://gw.example.com/coding/v1/chat/completions",
			"http://127.0.0.1:8000/v1?tag=kg": "http://127.0.0.1:8000/v1/chat/completions?tag=kg",
		},
		auth:   http.Header{"Authorization": {"Bearer " + apiKey}},
		list:   http.Header{"Authorization": {"Bearer " + apiKey}},
		golden: "chat.golden.json",
		stream: "openai-chat-text-recorded.sse",
		text:   "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.",
		finish: llm.FinishStop, id: "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL", model: "gpt-4o-2024-08-06",
		usageFields: llm.UsageInput | llm.UsageOutput | llm.UsageReasoning,
	},
	llm.ProviderOpenAIResponses: {
		urls: map[string]string{
			"https://api.example.com":         "https://api.example.com/v1/responses",
			"https://api.example.com/v1/":     "https://api.example.com/v1/responses",
			"https://gw.example.com/api/v4":   "https://gw.example.com/api/v4/responses",
			"https://gw.example.com/coding/":  "https://gw.example.com/coding/v1/responses",
			"http://127.0.0.1:8000/v1?tag=kg": "http://127.0.0.1:8000/v1/responses?tag=kg",
		},
		auth:   http.Header{"Authorization": {"Bearer " + apiKey}},
		list:   http.Header{"Authorization": {"Bearer " + apiKey}},
		golden: "responses.golden.json",
		stream: "openai-responses-text-spec.sse",
		text:   "Hi there! How can I assist you today?",
		finish: llm.FinishStop, id: "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654", model: "gpt-5.4",
		usageFields: llm.UsageInput | llm.UsageOutput | llm.UsageReasoning,
	},
	llm.ProviderAnthropic: {
		urls: map[string]string{
			"https://api.example.com":         "https://api.example.com/v1/messages",
			"https://api.example.com/v1/":     "https://api.example.com/v1/messages",
			"https://gw.example.com/api/v4":   "https://gw.example.com/api/v4/messages",
			"https://gw.example.com/coding/":  "https://gw.example.com/coding/v1/messages",
			"http://127.0.0.1:8000/v1?tag=kg": "http://127.0.0.1:8000/v1/messages?tag=kg",
		},
		auth:   http.Header{"X-Api-Key": {apiKey}, "Anthropic-Version": {"2023-06-01"}},
		list:   http.Header{"X-Api-Key": {apiKey}, "Anthropic-Version": {"2023-06-01"}},
		golden: "anthropic.golden.json",
		stream: "anthropic-text-sdkfixture.sse",
		text:   "Hello there!",
		finish: llm.FinishStop, id: "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK", model: "claude-3-opus-latest",
		usageFields: llm.UsageInput | llm.UsageOutput,
	},
	llm.ProviderGemini: {
		urls: map[string]string{
			"https://generativelanguage.googleapis.com": "https://generativelanguage.googleapis.com/v1beta/models/model-x:streamGenerateContent?alt=sse",
			"https://api.example.com/v1/":               "https://api.example.com/v1/models/model-x:streamGenerateContent?alt=sse",
			"https://api.example.com/v1beta":            "https://api.example.com/v1beta/models/model-x:streamGenerateContent?alt=sse",
			"https://gw.example.com/api/v4":             "https://gw.example.com/api/v4/models/model-x:streamGenerateContent?alt=sse",
			"https://gw.example.com/gemini/":            "https://gw.example.com/gemini/v1beta/models/model-x:streamGenerateContent?alt=sse",
			"http://127.0.0.1:8000/v1?tag=kg":           "http://127.0.0.1:8000/v1/models/model-x:streamGenerateContent?tag=kg&alt=sse",
		},
		auth:   http.Header{"X-Goog-Api-Key": {apiKey}},
		list:   http.Header{"X-Goog-Api-Key": {apiKey}},
		golden: "gemini.golden.json",
		stream: "gemini-text-thinking-docs.sse",
		text:   "Hello! How can I help you today?",
		finish: llm.FinishStop, id: "mKZ1aPSsFquqz7IP0pnq8Qk", model: "gemini-2.5-flash",
		usageFields: llm.UsageInput | llm.UsageCacheRead | llm.UsageOutput | llm.UsageReasoning,
	},
	llm.ProviderBedrockConverse: {
		urls: map[string]string{
			"https://bedrock-runtime.us-east-1.amazonaws.com": "https://bedrock-runtime.us-east-1.amazonaws.com/model/model-x/converse-stream",
			"https://vpce-1.bedrock-runtime.example.com/":     "https://vpce-1.bedrock-runtime.example.com/model/model-x/converse-stream",
			"http://127.0.0.1:8000/bedrock?tag=kg":            "http://127.0.0.1:8000/bedrock/model/model-x/converse-stream?tag=kg",
		},
		signs:       true,
		golden:      "bedrock-converse.golden.json",
		stream:      "bedrock-converse-text-docs.eventstream",
		text:        "Hello there!",
		finish:      llm.FinishStop,
		usageFields: llm.UsageInput | llm.UsageCacheRead | llm.UsageCacheWrite | llm.UsageOutput,
	},
	llm.ProviderBedrockAnthropic: {
		urls: map[string]string{
			"https://bedrock-runtime.us-east-1.amazonaws.com": "https://bedrock-runtime.us-east-1.amazonaws.com/model/model-x/invoke-with-response-stream",
			"http://127.0.0.1:8000/bedrock?tag=kg":            "http://127.0.0.1:8000/bedrock/model/model-x/invoke-with-response-stream?tag=kg",
		},
		signs:  true,
		golden: "bedrock-anthropic.golden.json",
		stream: "bedrock-anthropic-text-docs.eventstream",
		text:   "Hello there!",
		finish: llm.FinishStop, id: "msg_bdrk_01FqmHz5Ng6nJ3Qd6Y1Qb4xA", model: "claude-sonnet-4-20250514",
		usageFields: llm.UsageInput | llm.UsageCacheRead | llm.UsageCacheWrite | llm.UsageOutput,
	},
	llm.ProviderVertexAnthropic: {
		urls: map[string]string{
			"https://us-east5-aiplatform.googleapis.com/v1/projects/acme-vertex/locations/us-east5": "https://us-east5-aiplatform.googleapis.com/v1/projects/acme-vertex/locations/us-east5/publishers/anthropic/models/model-x:streamRawPredict",
			"http://127.0.0.1:8000/v1/projects/p1/locations/global/":                                "http://127.0.0.1:8000/v1/projects/p1/locations/global/publishers/anthropic/models/model-x:streamRawPredict",
		},
		signs:  true,
		golden: "vertex-anthropic.golden.json",
		stream: "anthropic-text-sdkfixture.sse",
		text:   "Hello there!",
		finish: llm.FinishStop, id: "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK", model: "claude-3-opus-latest",
		usageFields: llm.UsageInput | llm.UsageOutput,
	},
	llm.ProviderVertexGemini: {
		urls: map[string]string{
			"https://aiplatform.googleapis.com/v1/projects/acme-vertex/locations/global": "https://aiplatform.googleapis.com/v1/projects/acme-vertex/locations/global/publishers/google/models/model-x:streamGenerateContent?alt=sse",
			"http://127.0.0.1:8000/v1/projects/p1/locations/us-central1?tag=kg":          "http://127.0.0.1:8000/v1/projects/p1/locations/us-central1/publishers/google/models/model-x:streamGenerateContent?tag=kg&alt=sse",
		},
		signs:  true,
		golden: "vertex-gemini.golden.json",
		stream: "gemini-text-thinking-docs.sse",
		text:   "Hello! How can I help you today?",
		finish: llm.FinishStop, id: "mKZ1aPSsFquqz7IP0pnq8Qk", model: "gemini-2.5-flash",
		usageFields: llm.UsageInput | llm.UsageCacheRead | llm.UsageOutput | llm.UsageReasoning,
	},
	llm.ProviderOpenAICompletions: {
		urls: map[string]string{
			"https://api.example.com":         "https://api.example.com/v1/completions",
			"https://api.example.com/v1/":     "https://api.example.com/v1/completions",
			"https://gw.example.com/api/v4":   "https://gw.example.com/api/v4/completions",
			"https://gw.example.com/coding/":  "https://gw.example.com/coding/v1/completions",
			"http://127.0.0.1:8000/v1?tag=kg": "http://127.0.0.1:8000/v1/completions?tag=kg",
			"https://api.deepseek.com/beta":   "https://api.deepseek.com/beta/completions",
		},
		auth:   http.Header{"Authorization": {"Bearer " + apiKey}},
		list:   http.Header{"Authorization": {"Bearer " + apiKey}},
		golden: "completions.golden.json",
		stream: "openai-completions-text-spec.sse",
		text:   "This is a test",
		finish: llm.FinishLength, id: "cmpl-7iA7iJjj8V2zOkCGvWF2hAkDWBQZe", model: "gpt-3.5-turbo-instruct",
		usageFields: llm.UsageInput | llm.UsageOutput,
	},
	llm.ProviderMistralFIM: {
		urls: map[string]string{
			"https://api.example.com":         "https://api.example.com/v1/fim/completions",
			"https://api.example.com/v1/":     "https://api.example.com/v1/fim/completions",
			"https://gw.example.com/api/v4":   "https://gw.example.com/api/v4/fim/completions",
			"https://gw.example.com/coding/":  "https://gw.example.com/coding/v1/fim/completions",
			"http://127.0.0.1:8000/v1?tag=kg": "http://127.0.0.1:8000/v1/fim/completions?tag=kg",
		},
		auth:   http.Header{"Authorization": {"Bearer " + apiKey}},
		list:   http.Header{"Authorization": {"Bearer " + apiKey}},
		golden: "mistral-fim.golden.json",
		stream: "mistral-fim-text-docs.sse",
		text:   "\n assert is_odd(1)\n assert",
		finish: llm.FinishLength, id: "b41e0df599f94bc1a46ea9fcdbc2aabe", model: "codestral-latest",
		usageFields: llm.UsageInput | llm.UsageOutput,
	},
}

// decodeAll runs a recorded body through dec the way the client does: SSE,
// or the protocol's own frames (AWS's event stream).
func decodeAll(p protocol.Protocol, dec protocol.Decoder, raw []byte) ([]llm.Event, error) {
	if p.Frames == nil {
		return providertest.DecodeAll(dec, raw)
	}
	f := p.Frames(bytes.NewReader(raw))
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

// requestFor is a request of the shape p takes: the last cycle of
// providertest.Conversation, or providertest.FillInRequest for a
// fill-in-the-middle protocol.
func requestFor(p protocol.Protocol) llm.Request {
	if p.FillIn {
		return providertest.FillInRequest("model-x")
	}
	reqs := providertest.Conversation(p.Kind)
	return reqs[len(reqs)-1]
}

// eachRegistered makes one table entry per protocol provider.Builtin
// registers, named after it, after the spec body.
func eachRegistered(body any) []any {
	args := []any{body}
	for _, p := range provider.Builtin().All() {
		args = append(args, Entry(string(p.Kind), p))
	}
	return args
}

func fixtureOf(p protocol.Protocol) protocolFixture {
	f, ok := fixtures[p.Kind]
	ExpectWithOffset(1, ok).To(BeTrue(), "protocol %q is registered but has no fixture in registry_test.go", p.Kind)
	return f
}

var _ = Describe("The protocol registry (provider.Builtin)", func() {
	It("registers the built-in protocols, in the order the console offers them, with their labels: the conversation protocols first (a new model starts on Chat), then the fill-in-the-middle ones", func() {
		listed := provider.Builtin().Protocols()
		clouds := map[llm.ProviderKind]*ports.ProviderCloud{}
		for i := range listed {
			if listed[i].Cloud != nil {
				clouds[listed[i].Kind] = listed[i].Cloud
				listed[i].Cloud = nil
			}
		}
		for _, k := range []llm.ProviderKind{llm.ProviderVertexAnthropic, llm.ProviderVertexGemini} {
			Expect(clouds).To(HaveKey(k))
			Expect(clouds[k].Fields).To(Equal([]string{"project", "region"}))
			Expect(clouds[k].Sources).To(Equal([]ports.CredentialSource{ports.CredentialKeys, ports.CredentialDefault, ports.CredentialInstanceRole}))
			Expect(clouds[k].BaseURL(ports.CloudSettings{Region: "{region}", Project: "{project}"})).To(Equal(
				"https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}"))
		}
		Expect(listed).To(Equal([]ports.ProviderProtocol{
			{Kind: llm.ProviderOpenAIChat, Name: "OpenAI Chat", Title: "OpenAI Chat Completions (and compatible)"},
			{Kind: llm.ProviderOpenAIResponses, Name: "OpenAI Responses", Title: "OpenAI Responses"},
			{Kind: llm.ProviderAnthropic, Name: "Anthropic", Title: "Anthropic Messages"},
			{Kind: llm.ProviderGemini, Name: "Gemini", Title: "Google Gemini API (generateContent)"},
			{Kind: llm.ProviderBedrockConverse, Name: "Bedrock Converse", Title: "AWS Bedrock Converse (every model family)"},
			{Kind: llm.ProviderBedrockAnthropic, Name: "Bedrock Anthropic", Title: "AWS Bedrock, Anthropic Messages (InvokeModelWithResponseStream)"},
			{Kind: llm.ProviderVertexAnthropic, Name: "Vertex Anthropic", Title: "Google Vertex AI: Anthropic models (streamRawPredict)"},
			{Kind: llm.ProviderVertexGemini, Name: "Vertex Gemini", Title: "Google Vertex AI: Gemini (streamGenerateContent)"},
			{Kind: llm.ProviderOpenAICompletions, Name: "OpenAI Completions",
				Title: "OpenAI Completions with suffix (fill-in-the-middle: DeepSeek, vLLM, Ollama, llama.cpp, LM Studio)", FillIn: true},
			{Kind: llm.ProviderMistralFIM, Name: "Mistral FIM", Title: "Mistral FIM (Codestral)", FillIn: true},
		}))
	})

	It("has a recorded fixture for every registered protocol, and none for a protocol it does not register", func() {
		var kinds []llm.ProviderKind
		for _, p := range provider.Builtin().All() {
			kinds = append(kinds, p.Kind)
		}
		Expect(kinds).To(ConsistOf(slices.Collect(maps.Keys(fixtures))))
	})

	DescribeTable("every registered protocol derives its request URL from the bases users paste",
		eachRegistered(func(p protocol.Protocol) {
			for base, want := range fixtureOf(p).urls {
				Expect(provider.Builtin().RequestURL(p.Kind, base, "model-x", false)).To(Equal(want), "base %s", base)
			}
			full := "https://acme.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"
			Expect(provider.Builtin().RequestURL(p.Kind, full, "model-x", true)).To(Equal(full))
		})...,
	)

	It("refuses a base that is not http(s) with a host without showing its credentials", func() {
		for _, p := range provider.Builtin().All() {
			_, err := provider.Builtin().RequestURL(p.Kind, "ftp://admin:pa55word@api.example.com/v1?api_key=sk-in-query-123", "m", false)
			Expect(err).To(MatchError(provider.ErrBadBaseURL))
			Expect(err.Error()).NotTo(ContainSubstring("pa55word"))
			Expect(err.Error()).NotTo(ContainSubstring("sk-in-query-123"))
		}
	})

	DescribeTable("every registered protocol sets its auth and API-version headers, for calls and model listings",
		eachRegistered(func(p protocol.Protocol) {
			f := fixtureOf(p)
			if f.signs {
				Expect(p.Auth).To(BeNil(), "a cloud protocol sends no API key header")
				Expect(p.Sign).NotTo(BeNil())
				Expect(p.Cloud).NotTo(BeNil())
				Expect(p.Models.Discover).NotTo(BeNil())
				return
			}
			h := http.Header{}
			p.Auth(h, apiKey, compat.Quirks{})
			Expect(h).To(Equal(f.auth))
			u, err := url.Parse("https://api.example.com/v1/models")
			Expect(err).NotTo(HaveOccurred())
			h = http.Header{}
			p.Models.Auth(h, apiKey, u)
			Expect(h).To(Equal(f.list))
		})...,
	)

	DescribeTable("every registered protocol writes the golden request body, the same bytes every time",
		eachRegistered(func(p protocol.Protocol) {
			body, err := p.AppendRequest(nil, requestFor(p), protocol.RequestOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.Golden(filepath.Join("testdata", fixtureOf(p).golden), body)).To(Succeed())
			again, err := p.AppendRequest(nil, requestFor(p), protocol.RequestOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(again).To(Equal(body))
		})...,
	)

	DescribeTable("every registered protocol refuses a request of the other shape: a conversation protocol a fill-in-the-middle request, a fill-in protocol a conversation",
		eachRegistered(func(p protocol.Protocol) {
			other := providertest.FillInRequest("model-x")
			if p.FillIn {
				reqs := providertest.Conversation(llm.ProviderOpenAIChat)
				other = reqs[len(reqs)-1]
			}
			body, err := p.AppendRequest([]byte("kept"), other, protocol.RequestOptions{})
			Expect(err).To(MatchError(protocol.ErrWrongShape))
			Expect(err.Error()).To(ContainSubstring(p.Name))
			Expect(string(body)).To(Equal("kept"))
		})...,
	)

	DescribeTable("every registered protocol decodes a recorded stream from testdata",
		eachRegistered(func(p protocol.Protocol) {
			f := fixtureOf(p)
			raw, err := os.ReadFile(filepath.Join("testdata", f.stream))
			Expect(err).NotTo(HaveOccurred())
			dec := p.NewDecoder()
			events, err := decodeAll(p, dec, raw)
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.CheckGrammar(events)).To(Succeed())
			s := providertest.Summarize(events)
			Expect(s.Text).To(Equal(f.text))
			Expect(s.Finish).To(Equal(f.finish))
			Expect(s.Usage).NotTo(BeNil())
			Expect(s.Usage.Known).To(Equal(f.usageFields))
			id, model := dec.Meta()
			Expect(id).To(Equal(f.id))
			Expect(model).To(Equal(f.model))
			Expect(p.NewDecoder()).NotTo(BeIdenticalTo(dec), "each response gets a fresh decoder")
		})...,
	)

	It("keeps every model's extra parameters off the fields any registered protocol carries the conversation in", func() {
		Expect(provider.Builtin().Reserved()).To(ConsistOf("model", "stream", "messages", "input", "tools", "system",
			"instructions", "prompt_cache_key", "prompt", "suffix", "contents", "systemInstruction", "toolConfig", "anthropic_version"))
		srv := providertest.NewServer()
		DeferCleanup(srv.Close)
		client := provider.New(provider.Options{})
		for _, p := range provider.Builtin().All() {
			for _, field := range provider.Builtin().Reserved() {
				_, err := client.Stream(context.Background(), ports.ModelCall{CallID: "r:0",
					Endpoint: ports.Endpoint{Kind: p.Kind, URL: srv.URL + "/v1/x", APIKey: apiKey,
						ExtraParams: []byte(`{"` + field + `":1}`)}, Request: requestFor(p)})
				Expect(providerError(err).Class).To(Equal(llm.ErrorBadRequest), "%s with extra %q", p.Kind, field)
			}
		}
		Expect(srv.Requests()).To(BeEmpty())
	})

	Describe("a kind no protocol is registered for", func() {
		const unknown = llm.ProviderKind("bedrock")

		It("is refused by name, with the kinds Keygate speaks", func() {
			_, err := provider.Builtin().Lookup(unknown)
			Expect(err).To(MatchError(provider.ErrUnknownKind))
			Expect(err).To(MatchError(`unknown provider kind "bedrock": Keygate speaks openai_chat, openai_responses, anthropic, gemini, bedrock_converse, bedrock_anthropic, vertex_anthropic, vertex_gemini, openai_completions and mistral_fim`))
		})

		It("has no request URL, not even a full one", func() {
			_, err := provider.Builtin().RequestURL(unknown, "https://api.example.com/v1", "m", false)
			Expect(err).To(MatchError(provider.ErrUnknownKind))
			_, err = provider.Builtin().RequestURL(unknown, "https://api.example.com/v1/x", "m", true)
			Expect(err).To(MatchError(provider.ErrUnknownKind))
		})

		It("is a bad request to the client, which sends nothing", func() {
			srv := providertest.NewServer()
			DeferCleanup(srv.Close)
			_, err := provider.New(provider.Options{}).Stream(context.Background(), ports.ModelCall{CallID: "r:0",
				Endpoint: ports.Endpoint{Kind: unknown, URL: srv.URL + "/v1/x", APIKey: apiKey}, Request: simpleRequest("m")})
			perr := providerError(err)
			Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
			Expect(perr.Message).To(ContainSubstring(`unknown provider kind "bedrock"`))
			Expect(errors.Is(err, provider.ErrUnknownKind)).To(BeTrue())
			Expect(srv.Requests()).To(BeEmpty())
		})
	})

	Describe("NewRegistry", func() {
		It("refuses a protocol with a part missing, naming it", func() {
			p := openai.Chat()
			p.NewDecoder = nil
			_, err := provider.NewRegistry(p)
			Expect(err).To(MatchError(`register provider protocols: protocol "openai_chat": NewDecoder is not set`))
			p = openai.Chat()
			p.Models.List = nil
			_, err = provider.NewRegistry(p)
			Expect(err).To(MatchError(ContainSubstring("Models.List is not set")))
		})

		It("refuses a kind registered twice", func() {
			_, err := provider.NewRegistry(openai.Chat(), openai.Responses(), openai.Chat())
			Expect(err).To(MatchError(`register provider protocols: kind "openai_chat" registered twice`))
		})

		It("refuses an empty registry", func() {
			_, err := provider.NewRegistry()
			Expect(err).To(HaveOccurred())
		})

		It("serves only what it registers", func() {
			r, err := provider.NewRegistry(openai.Responses())
			Expect(err).NotTo(HaveOccurred())
			_, err = r.Lookup(llm.ProviderOpenAIChat)
			Expect(err).To(MatchError(`unknown provider kind "openai_chat": Keygate speaks openai_responses`))
			client := provider.New(provider.Options{Protocols: r})
			_, err = client.Stream(context.Background(), ports.ModelCall{CallID: "r:0",
				Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: "http://127.0.0.1:9/v1/chat/completions", APIKey: apiKey},
				Request:  simpleRequest("m")})
			Expect(err).To(MatchError(provider.ErrUnknownKind))
		})
	})
})
