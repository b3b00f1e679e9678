package gemini_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/gemini"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

func body(req llm.Request) []byte {
	b, err := gemini.AppendRequest(nil, req, protocol.RequestOptions{})
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return b
}

// doc decodes a body for reading one field.
type doc struct {
	Contents []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []map[string]any `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig map[string]any `json:"generationConfig"`
}

func read(b []byte) doc {
	var d doc
	ExpectWithOffset(1, json.Unmarshal(b, &d)).To(Succeed(), "%s", b)
	return d
}

func user(text string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}}
}

func result(id, name, content string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: id, Name: name, Content: content}}
}

var _ = Describe("A Gemini request body", func() {
	It("keeps the bytes of a conversation when it is extended by a turn: each body up to its last content starts the next", func() {
		reqs := providertest.Conversation(llm.ProviderGemini)
		for i := 0; i+1 < len(reqs); i++ {
			a, b := body(reqs[i]), body(reqs[i+1])
			prefix := bytes.TrimSuffix(a, []byte("]}"))
			Expect(len(prefix)).To(Equal(len(a)-2), "contents close the body")
			Expect(bytes.HasPrefix(b, prefix)).To(BeTrue(), "cycle %d is not a byte prefix of cycle %d:\n%s\n%s", i, i+1, a, b)
		}
	})

	It("replays a thought signature on the part that carried it, and one from another protocol not at all", func() {
		calls := []llm.ToolCall{
			{Index: 0, CallID: "c0", Name: "read_file", Arguments: []byte(`{"path":"a"}`)},
			{Index: 1, CallID: "c1", Name: "read_file", Arguments: []byte(`{"path":"b"}`)},
		}
		req := llm.Request{Model: "gemini-2.5-pro", Messages: []llm.Message{user("go"),
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "Reading.", Calls: calls,
				Replay: &llm.ReplayState{Kind: llm.ProviderGemini, Value: []byte(`{"text":"sig-t","calls":[{"index":1,"signature":"sig/+1=="}]}`)}}},
			result("c0", "read_file", "A"), result("c1", "read_file", "B")}}
		model := read(body(req)).Contents[1]
		Expect(model.Role).To(Equal("model"))
		Expect(model.Parts).To(HaveLen(3))
		Expect(model.Parts[0]).To(Equal(map[string]any{"text": "Reading.", "thoughtSignature": "sig-t"}))
		Expect(model.Parts[1]).NotTo(HaveKey("thoughtSignature"))
		Expect(model.Parts[2]).To(HaveKeyWithValue("thoughtSignature", "sig/+1=="))

		req.Messages[1].Assistant.Replay = &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(`{"calls":[{"index":1,"signature":"theirs"}]}`)}
		Expect(string(body(req))).NotTo(ContainSubstring("thoughtSignature"))
	})

	It("gives Gemini 3 the documented stand-in signature on the first call of a turn that has none, and older models nothing", func() {
		req := llm.Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{user("go"),
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Calls: []llm.ToolCall{
				{Index: 0, CallID: "toolu_1", Name: "grep", Arguments: []byte(`{}`)},
				{Index: 1, CallID: "toolu_2", Name: "grep", Arguments: []byte(`{}`)}}}},
			result("toolu_1", "grep", "x"), result("toolu_2", "grep", "y")}}
		parts := read(body(req)).Contents[1].Parts
		Expect(parts[0]).To(HaveKeyWithValue("thoughtSignature", gemini.SkipSignature))
		Expect(parts[1]).NotTo(HaveKey("thoughtSignature"))
		req.Model = "gemini-2.5-flash"
		Expect(string(body(req))).NotTo(ContainSubstring("thoughtSignature"))
	})

	It("answers a tool round in the order of its calls, under the calls' names, whatever order the results came in", func() {
		req := llm.Request{Model: "m", Messages: []llm.Message{user("go"),
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Calls: []llm.ToolCall{
				{Index: 0, CallID: "fc_r_0", Name: "read_file", Arguments: []byte(`{}`)},
				{Index: 1, CallID: "fc_r_1", Name: "grep", Arguments: []byte(`not json`)}}}},
			result("fc_r_1", "", "matches"),
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "fc_r_0", Name: "read_file", Content: "denied", IsError: true}},
		}}
		d := read(body(req))
		Expect(d.Contents[1].Parts[1]).To(HaveKeyWithValue("functionCall", map[string]any{"name": "grep", "args": map[string]any{}}))
		Expect(d.Contents).To(HaveLen(3))
		Expect(d.Contents[2].Role).To(Equal("user"))
		Expect(d.Contents[2].Parts).To(Equal([]map[string]any{
			{"functionResponse": map[string]any{"name": "read_file", "response": map[string]any{"error": "denied"}}},
			{"functionResponse": map[string]any{"name": "grep", "response": map[string]any{"output": "matches"}}},
		}))
		Expect(string(body(req))).NotTo(ContainSubstring("fc_r_"), "Keygate's call ids are never sent")
	})

	It("rewrites a tool's JSON Schema into the subset Gemini accepts", func() {
		schema := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
			"properties":{"path":{"type":["string","null"],"format":"uri","description":"where"},
			"mode":{"oneOf":[{"const":"r"},{"type":"integer","enum":[1,2],"exclusiveMinimum":0}]},
			"when":{"type":"string","format":"date-time"},
			"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"uniqueItems":true},
			"opts":{"type":"object","properties":{},"additionalProperties":{"type":"string"}}},
			"required":["path"],"$defs":{"x":{"type":"string"}}}`
		req := llm.Request{Model: "m", Tools: []llm.Tool{
			{Name: "t", Description: "d", Parameters: []byte(schema)},
			{Name: "none", Parameters: []byte(`{"type":"object","properties":{}}`)},
		}, Messages: []llm.Message{user("x")}}
		decls := read(body(req)).Tools[0].FunctionDeclarations
		Expect(decls[0]["parameters"]).To(Equal(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path": map[string]any{"type": "string", "description": "where", "nullable": true},
				"mode": map[string]any{"anyOf": []any{map[string]any{"enum": []any{"r"}}, map[string]any{"type": "integer"}}},
				"when": map[string]any{"type": "string", "format": "date-time"},
				"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
				"opts": map[string]any{"type": "object"},
			},
			"required": []any{"path"},
		}))
		Expect(decls[1]).To(Equal(map[string]any{"name": "none"}), "a tool without properties is declared without parameters")
	})

	DescribeTable("asks for thoughts with Gemini 3's level or Gemini 2.5's budget by effort",
		func(model, effort string, want map[string]any) {
			req := llm.Request{Model: model, Reasoning: llm.Reasoning{Enabled: true, Effort: effort}, Messages: []llm.Message{user("x")}}
			Expect(read(body(req)).GenerationConfig).To(Equal(map[string]any{"thinkingConfig": want}))
		},
		Entry("Gemini 3 Pro, high", "gemini-3-pro-preview", "high", map[string]any{"includeThoughts": true, "thinkingLevel": "high"}),
		Entry("Gemini 3 Pro, medium (Pro has low and high)", "gemini-3-pro-preview", "medium", map[string]any{"includeThoughts": true, "thinkingLevel": "high"}),
		Entry("Gemini 3 Flash, medium", "gemini-3-flash-preview", "medium", map[string]any{"includeThoughts": true, "thinkingLevel": "medium"}),
		Entry("Gemini 3, no effort: the model's default", "gemini-3-pro-preview", "", map[string]any{"includeThoughts": true}),
		Entry("Gemini 2.5, low", "gemini-2.5-flash", "low", map[string]any{"includeThoughts": true, "thinkingBudget": 1024.0}),
		Entry("Gemini 2.5, no effort: dynamic", "gemini-2.5-pro", "", map[string]any{"includeThoughts": true, "thinkingBudget": -1.0}),
	)

	It("sends no generationConfig without a cap or thinking, and lets a model's extras replace it", func() {
		req := llm.Request{Model: "m", Messages: []llm.Message{user("x")}}
		Expect(string(body(req))).NotTo(ContainSubstring("generationConfig"))
		req.MaxOutputTokens = 100
		extras, err := wire.ParseExtras([]byte(`{"generationConfig":{"temperature":0.2},"safetySettings":[]}`), gemini.API().Reserved)
		Expect(err).NotTo(HaveOccurred())
		b, err := gemini.AppendRequest(nil, req, protocol.RequestOptions{Extras: extras})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"generationConfig":{"temperature":0.2},"contents":[{"role":"user","parts":[{"text":"x"}]}],"safetySettings":[]}`))
	})
})
