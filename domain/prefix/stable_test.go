package prefix_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/prefix"
)

func sampleRequest() llm.Request {
	img := func() *llm.Image { return &llm.Image{MIMEType: "image/png", BlobID: "b"} }
	return llm.Request{
		Model: "m", CacheKey: "k", Instructions: "sys",
		Tools: []llm.Tool{{Name: "Read", Description: "reads", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{ID: "u", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "look"}, {Kind: llm.PartImage, Image: img()}}},
			{ID: "r", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "t", Thinking: "th",
				Replay: &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte("sig")},
				Calls:  []llm.ToolCall{{CallID: "c", Name: "Read", Arguments: []byte(`{}`)}}}},
			{ID: "res", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c", Name: "Read", Content: "body", Image: img()}},
		},
	}
}

var _ = Describe("prefix.IsStablePrefix", func() {
	var previous, next llm.Request

	BeforeEach(func() {
		previous, next = sampleRequest(), sampleRequest()
		next.Messages = append(next.Messages, llm.Message{ID: "n", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "more"}}})
	})

	It("accepts a request that appends messages", func() {
		Expect(previous).To(BeStablePrefixOf(next))
		r := prefix.IsStablePrefix(previous, next)
		Expect(r.Common).To(Equal(3))
		Expect(r.Err()).To(Succeed())
	})

	It("ignores message ids, which never reach a provider", func() {
		for i := range next.Messages {
			next.Messages[i].ID = "renamed"
		}
		Expect(previous).To(BeStablePrefixOf(next))
	})

	It("ignores settings outside the prompt", func() {
		next.MaxOutputTokens, next.ServiceTier, next.Reasoning = 5, "fast", llm.Reasoning{Enabled: true}
		Expect(previous).To(BeStablePrefixOf(next))
	})

	It("ignores a transient tail of the previous request, which was never stored", func() {
		previous.Messages = append(previous.Messages, llm.Message{ID: conversation.ContinueID, Role: llm.RoleUser,
			Parts: []llm.Part{{Kind: llm.PartText, Text: "Continue"}}})
		r := prefix.IsStablePrefix(previous, next)
		Expect(r.Stable).To(BeTrue())
		Expect(r.IgnoredTail).To(BeTrue())
	})

	DescribeTable("reports the first model-visible difference, with its field and cause",
		func(mutate func(next *llm.Request), field string, index int, cause prefix.Cause) {
			mutate(&next)
			Expect(previous).NotTo(BeStablePrefixOf(next))
			r := prefix.IsStablePrefix(previous, next)
			Expect(r.Divergence.Field).To(Equal(field))
			Expect(r.Divergence.Index).To(Equal(index))
			Expect(r.Divergence.Cause).To(Equal(cause))
			Expect(r.Err()).To(MatchError(prefix.ErrPrefixMismatch))
			Expect(r.Err().Error()).To(ContainSubstring(field))
		},
		Entry("a model switch breaks the cache", func(n *llm.Request) { n.Model = "other" }, "model", -1, prefix.CauseChanged),
		Entry("a new cache key breaks the cache", func(n *llm.Request) { n.CacheKey = "k2" }, "cache_key", -1, prefix.CauseChanged),
		Entry("changed instructions break the cache", func(n *llm.Request) { n.Instructions = "sys!" }, "instructions", -1, prefix.CauseChanged),
		Entry("a renamed tool breaks the cache", func(n *llm.Request) { n.Tools[0].Name = "Open" }, "tools[0].name", -1, prefix.CauseChanged),
		Entry("a reworded tool breaks the cache", func(n *llm.Request) { n.Tools[0].Description = "x" }, "tools[0].description", -1, prefix.CauseChanged),
		Entry("a changed tool schema breaks the cache", func(n *llm.Request) { n.Tools[0].Parameters = []byte(`{}`) }, "tools[0].parameters", -1, prefix.CauseChanged),
		Entry("a removed tool breaks the cache", func(n *llm.Request) { n.Tools = nil }, "tools[0]", -1, prefix.CauseRemoved),
		Entry("an added tool breaks the cache", func(n *llm.Request) { n.Tools = append(n.Tools, llm.Tool{Name: "Grep"}) }, "tools[1]", -1, prefix.CauseChanged),
		Entry("a removed message breaks the prefix", func(n *llm.Request) { n.Messages = n.Messages[:2] }, "messages[2]", 2, prefix.CauseRemoved),
		Entry("a changed role breaks the prefix", func(n *llm.Request) { n.Messages[0].Role = llm.RoleSystem }, "messages[0].role", 0, prefix.CauseChanged),
		Entry("a changed part count breaks the prefix", func(n *llm.Request) { n.Messages[0].Parts = n.Messages[0].Parts[:1] }, "messages[0].parts", 0, prefix.CauseChanged),
		Entry("a changed part kind breaks the prefix", func(n *llm.Request) { n.Messages[0].Parts[0].Kind = llm.PartImage }, "messages[0].parts[0].kind", 0, prefix.CauseChanged),
		Entry("changed user text breaks the prefix", func(n *llm.Request) { n.Messages[0].Parts[0].Text = "Look" }, "messages[0].parts[0].text", 0, prefix.CauseChanged),
		Entry("a changed image breaks the prefix", func(n *llm.Request) { n.Messages[0].Parts[1].Image = &llm.Image{MIMEType: "image/jpeg"} }, "messages[0].parts[1].image", 0, prefix.CauseChanged),
		Entry("changed assistant text breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Text = "T" }, "messages[1].assistant.text", 1, prefix.CauseChanged),
		Entry("changed thinking breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Thinking = "" }, "messages[1].assistant.thinking", 1, prefix.CauseChanged),
		Entry("dropped replay state breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Replay = nil }, "messages[1].assistant.replay", 1, prefix.CauseChanged),
		Entry("changed replay bytes break the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Replay.Value = []byte("x") }, "messages[1].assistant.replay", 1, prefix.CauseChanged),
		Entry("a changed call count breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Calls = nil }, "messages[1].assistant.calls", 1, prefix.CauseChanged),
		Entry("a changed call id breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Calls[0].CallID = "d" }, "messages[1].assistant.calls[0].call_id", 1, prefix.CauseChanged),
		Entry("a changed call name breaks the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Calls[0].Name = "Grep" }, "messages[1].assistant.calls[0].name", 1, prefix.CauseChanged),
		Entry("re-serialised arguments break the prefix", func(n *llm.Request) { n.Messages[1].Assistant.Calls[0].Arguments = []byte(`{ }`) }, "messages[1].assistant.calls[0].arguments", 1, prefix.CauseChanged),
		Entry("an assistant turned into another kind breaks the prefix", func(n *llm.Request) {
			n.Messages[1].Assistant = nil
		}, "messages[1].assistant", 1, prefix.CauseChanged),
		Entry("a tool result turned into another kind breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult = nil }, "messages[2].tool_result", 2, prefix.CauseChanged),
		Entry("a changed result call id breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult.CallID = "d" }, "messages[2].tool_result.call_id", 2, prefix.CauseChanged),
		Entry("a changed result name breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult.Name = "Grep" }, "messages[2].tool_result.name", 2, prefix.CauseChanged),
		Entry("re-capped result content breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult.Content = "bod" }, "messages[2].tool_result.content", 2, prefix.CauseChanged),
		Entry("a changed error flag breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult.IsError = true }, "messages[2].tool_result.is_error", 2, prefix.CauseChanged),
		Entry("a dropped result image breaks the prefix", func(n *llm.Request) { n.Messages[2].ToolResult.Image = nil }, "messages[2].tool_result.image", 2, prefix.CauseChanged),
	)

	It("names the message where history diverged", func() {
		next.Messages[1].Assistant.Text = "other"
		r := prefix.IsStablePrefix(previous, next)
		Expect(r.Divergence.MessageID).To(Equal("r"))
		Expect(r.Common).To(Equal(1))
		Expect(r.Err().Error()).To(ContainSubstring(`message "r"`))
	})

	It("names causes for logs", func() {
		Expect(prefix.CauseChanged.String()).To(Equal("changed"))
		Expect(prefix.CauseRemoved.String()).To(Equal("removed"))
		Expect(prefix.Cause(0).String()).To(Equal("unknown"))
		next.Model = "x"
		Expect(prefix.IsStablePrefix(previous, next).Err().Error()).To(Equal("request prefix broken at model: changed"))
	})
})
