package conversation_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

var _ = Describe("NewMessage", func() {
	text := []llm.Part{{Kind: llm.PartText, Text: "hi"}}
	call := func(index int, id string) llm.ToolCall {
		return llm.ToolCall{Index: index, CallID: id, Name: "Read", Arguments: []byte(`{"path":"/a"}`)}
	}

	DescribeTable("accepts only messages whose role, origin and content fit",
		func(spec conversation.MessageSpec, valid bool) {
			_, err := conversation.NewMessage(spec)
			if valid {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(MatchError(conversation.ErrInvalidMessage))
			}
		},
		Entry("a runtime user message with text parts is valid",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginRuntime, Parts: text}, true),
		Entry("a prompt-origin system message is valid",
			conversation.MessageSpec{ID: "s", Role: llm.RoleSystem, Origin: conversation.OriginPrompt, Parts: text}, true),
		Entry("a message needs an id",
			conversation.MessageSpec{Role: llm.RoleUser, Origin: conversation.OriginUser, Parts: text}, false),
		Entry("a message needs a known role",
			conversation.MessageSpec{ID: "x", Origin: conversation.OriginUser, Parts: text}, false),
		Entry("a user message needs parts",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser}, false),
		Entry("a system message cannot come from the user",
			conversation.MessageSpec{ID: "s", Role: llm.RoleSystem, Origin: conversation.OriginUser, Parts: text}, false),
		Entry("a message holds exactly one kind of content",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser, Parts: text,
				Assistant: &llm.Assistant{Text: "x"}}, false),
		Entry("a user message does not belong to a tool round",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser, Parts: text,
				ToolRoundID: "r"}, false),
		Entry("text must be valid UTF-8",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartText, Text: "\xff"}}}, false),
		Entry("a text part holds no image",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartText, Text: "a", Image: &llm.Image{MIMEType: "image/png"}}}}, false),
		Entry("an image part needs an image",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartImage}}}, false),
		Entry("an image needs a MIME type",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartImage, Image: &llm.Image{Data: []byte{1}}}}}, false),
		Entry("an image needs data or a blob id",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png"}}}}, false),
		Entry("an inline user image is valid",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", Data: []byte{1}}}}}, true),
		Entry("a part needs a known kind",
			conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser,
				Parts: []llm.Part{{Text: "a"}}}, false),
		Entry("an assistant message comes from the assistant",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginRuntime,
				Assistant: &llm.Assistant{Text: "x"}}, false),
		Entry("an assistant message needs assistant content",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, Parts: text}, false),
		Entry("replay state names its provider kind",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Replay: &llm.ReplayState{Value: []byte("x")}}}, false),
		Entry("tool calls need distinct indexes",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{call(0, "c1"), call(0, "c2")}}}, false),
		Entry("tool calls need distinct call ids",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{call(0, "c1"), call(1, "c1")}}}, false),
		Entry("a tool call needs a name",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{{CallID: "c1"}}}}, false),
		Entry("tool-call arguments are JSON",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":`)}}}}, false),
		Entry("a tool-round part holds exactly one call",
			conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, ToolRoundID: "r",
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{call(0, "c1"), call(1, "c2")}}}, false),
		Entry("a tool message comes from a tool",
			conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginAssistant,
				ToolResult: &llm.ToolResult{CallID: "c1"}}, false),
		Entry("a tool message needs a tool result",
			conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool, Parts: text}, false),
		Entry("a tool result needs a call id",
			conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool,
				ToolResult: &llm.ToolResult{Content: "x"}}, false),
		Entry("a stored tool-result image is a blob reference without bytes",
			conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool,
				ToolResult: &llm.ToolResult{CallID: "c1", Image: &llm.Image{MIMEType: "image/png", Data: []byte{1}, BlobID: "b"}}}, false),
		Entry("a tool-result image with a blob id is valid",
			conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool,
				ToolResult: &llm.ToolResult{CallID: "c1", Image: &llm.Image{MIMEType: "image/png", BlobID: "b", Path: "/a.png"}}}, true),
	)

	When("a tool call has no argument text", func() {
		It("stores the arguments as an empty JSON object", func() {
			m, err := conversation.NewMessage(conversation.MessageSpec{
				ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				Assistant: &llm.Assistant{Calls: []llm.ToolCall{{CallID: "c1", Name: "Read"}}},
			})
			Expect(err).NotTo(HaveOccurred())
			a, _ := m.Assistant()
			Expect(string(a.Calls[0].Arguments)).To(Equal("{}"))
		})
	})

	When("the caller changes its spec after construction", func() {
		It("keeps the message unchanged", func() {
			parts := []llm.Part{{Kind: llm.PartText, Text: "before"}}
			m, err := conversation.NewMessage(conversation.MessageSpec{
				ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser, Parts: parts})
			Expect(err).NotTo(HaveOccurred())
			parts[0].Text = "after"
			Expect(m.Text()).To(Equal("before"))
			got := m.Parts()
			got[0].Text = "changed through accessor"
			Expect(m.Text()).To(Equal("before"))
		})
	})
})

var _ = Describe("Message.Encode and DecodeMessage", func() {
	var samples []conversation.Message

	BeforeEach(func() {
		mk := func(spec conversation.MessageSpec) conversation.Message {
			m, err := conversation.NewMessage(spec)
			Expect(err).NotTo(HaveOccurred())
			return m
		}
		samples = []conversation.Message{
			mk(conversation.MessageSpec{ID: conversation.RequestContextID("e1"), Role: llm.RoleUser,
				Origin: conversation.OriginPrompt, Parts: []llm.Part{{Kind: llm.PartText, Text: "<user_info>os & shell</user_info>"}}}),
			mk(conversation.MessageSpec{ID: "u", Role: llm.RoleUser, Origin: conversation.OriginUser, RuntimeEventID: "ev",
				Parts: []llm.Part{{Kind: llm.PartText, Text: "look"}, {Kind: llm.PartImage,
					Image: &llm.Image{MIMEType: "image/png", Data: []byte{0, 1, 2}, Path: "/x.png"}}}}),
			mk(conversation.MessageSpec{ID: "a", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
				ToolRoundID: "run:round:0",
				Assistant: &llm.Assistant{Text: "reading", Thinking: "hmm",
					Replay: &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(`{"signature":"s"}`)},
					Calls: []llm.ToolCall{{Index: 2, CallID: "c1", Name: "Read", Arguments: []byte(`{ "path" : "/a" }`),
						ArgumentError: ""}}}}),
			mk(conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool, ToolRoundID: "run:round:0",
				ToolResult: &llm.ToolResult{CallID: "c1", Name: "Read", Content: "ünïcode", IsError: true,
					Image: &llm.Image{MIMEType: "image/png", BlobID: "sha256:ab"}}}),
		}
	})

	It("round-trips every kind of message to an equal message with identical bytes", func() {
		for _, m := range samples {
			back, err := conversation.DecodeMessage(m.Encode())
			Expect(err).NotTo(HaveOccurred())
			Expect(back.Equal(m)).To(BeTrue(), m.ID())
			Expect(back.Encode()).To(Equal(m.Encode()))
			Expect(back.LLM()).To(Equal(m.LLM()))
		}
	})

	It("keeps tool-call argument bytes exactly as the model sent them", func() {
		back, err := conversation.DecodeMessage(samples[2].Encode())
		Expect(err).NotTo(HaveOccurred())
		a, ok := back.Assistant()
		Expect(ok).To(BeTrue())
		Expect(string(a.Calls[0].Arguments)).To(Equal(`{ "path" : "/a" }`))
	})

	It("does not escape HTML characters in stored text", func() {
		Expect(string(samples[0].Encode())).To(ContainSubstring("<user_info>os & shell</user_info>"))
	})

	DescribeTable("rejects bytes that are not a canonical encoding",
		func(mutate func([]byte) []byte) {
			_, err := conversation.DecodeMessage(mutate(samples[1].Encode()))
			Expect(err).To(HaveOccurred())
			Expect(errors.Is(err, conversation.ErrNonCanonical) || errors.Is(err, conversation.ErrInvalidMessage)).To(BeTrue(), err.Error())
		},
		Entry("extra whitespace changes the bytes", func(b []byte) []byte { return append([]byte(" "), b...) }),
		Entry("unknown fields are refused", func(b []byte) []byte {
			return append([]byte(`{"Extra":1,`), b[1:]...)
		}),
		Entry("an unknown version is refused", func(b []byte) []byte {
			return []byte(replaceOnce(string(b), `"V":1`, `"V":2`))
		}),
		Entry("an unknown role is refused", func(b []byte) []byte {
			return []byte(replaceOnce(string(b), `"Role":"user"`, `"Role":"robot"`))
		}),
		Entry("an unknown origin is refused", func(b []byte) []byte {
			return []byte(replaceOnce(string(b), `"Origin":"user"`, `"Origin":"robot"`))
		}),
		Entry("an unknown part kind is refused", func(b []byte) []byte {
			return []byte(replaceOnce(string(b), `"Kind":"text"`, `"Kind":"video"`))
		}),
		Entry("content that breaks a construction rule is refused", func(b []byte) []byte {
			return []byte(replaceOnce(string(b), `"ID":"u"`, `"ID":""`))
		}),
		Entry("garbage is refused", func([]byte) []byte { return []byte("not json") }),
	)
})

var _ = Describe("Message accessors", func() {
	It("expose what the message was built with", func() {
		m, err := conversation.NewMessage(conversation.MessageSpec{ID: "t", Role: llm.RoleTool, Origin: conversation.OriginTool,
			ToolRoundID: "r", RuntimeEventID: "ev", ToolResult: &llm.ToolResult{CallID: "c", Content: "out"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Origin()).To(Equal(conversation.OriginTool))
		Expect(m.ToolRoundID()).To(Equal("r"))
		Expect(m.RuntimeEventID()).To(Equal("ev"))
		Expect(m.Text()).To(Equal("out"))
		r, ok := m.ToolResult()
		Expect(ok).To(BeTrue())
		Expect(r.CallID).To(Equal("c"))
		_, ok = m.Assistant()
		Expect(ok).To(BeFalse())
		Expect(m.Hash()).NotTo(Equal([32]byte{}))
		a := assistantText("a", "hi")
		Expect(a.Text()).To(Equal("hi"))
		_, ok = a.ToolResult()
		Expect(ok).To(BeFalse())
	})

	DescribeTable("origins have stable names",
		func(o conversation.Origin, name string) { Expect(o.String()).To(Equal(name)) },
		Entry("prompt", conversation.OriginPrompt, "prompt"),
		Entry("user", conversation.OriginUser, "user"),
		Entry("runtime", conversation.OriginRuntime, "runtime"),
		Entry("assistant", conversation.OriginAssistant, "assistant"),
		Entry("tool", conversation.OriginTool, "tool"),
		Entry("unknown", conversation.Origin(0), "unknown"),
	)

	DescribeTable("decision outcomes have stable names",
		func(o conversation.Outcome, name string) { Expect(o.String()).To(Equal(name)) },
		Entry("unchanged", conversation.Unchanged, "unchanged"),
		Entry("move head", conversation.MoveHead, "move_head"),
		Entry("create", conversation.Create, "create"),
		Entry("unknown", conversation.Outcome(0), "unknown"),
	)
})
