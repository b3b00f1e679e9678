package prefix_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/prefix"
)

// both compares previous with next in full and by shape.
func both(previous, next llm.Request) (full, shaped prefix.Report) {
	return prefix.IsStablePrefix(previous, next), prefix.CompareShapes(prefix.ShapeOf(previous), prefix.ShapeOf(next))
}

var _ = Describe("prefix.Shape", func() {
	var previous, next llm.Request

	BeforeEach(func() {
		previous, next = sampleRequest(), sampleRequest()
		next.Messages = append(next.Messages, llm.Message{ID: "n", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "more"}}})
	})

	DescribeTable("reports what IsStablePrefix reports on the whole requests",
		func(mutate func(p, n *llm.Request)) {
			mutate(&previous, &next)
			full, shaped := both(previous, next)
			Expect(shaped).To(Equal(full))
		},
		Entry("an appended message", func(*llm.Request, *llm.Request) {}),
		Entry("renamed message ids", func(_, n *llm.Request) {
			for i := range n.Messages {
				n.Messages[i].ID = "renamed"
			}
		}),
		Entry("settings outside the prompt", func(_, n *llm.Request) { n.MaxOutputTokens, n.ServiceTier = 5, "fast" }),
		Entry("a transient tail of the previous request", func(p, _ *llm.Request) {
			p.Messages = append(p.Messages, llm.Message{ID: conversation.ContinueID, Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "Continue"}}})
		}),
		Entry("a transient tail and an edit", func(p, n *llm.Request) {
			p.Messages = append(p.Messages, llm.Message{ID: conversation.CompactionInstructionID, Role: llm.RoleUser})
			n.Messages[2].ToolResult.Content = "changed"
		}),
		Entry("a model switch", func(_, n *llm.Request) { n.Model = "other" }),
		Entry("a new cache key", func(_, n *llm.Request) { n.CacheKey = "k2" }),
		Entry("changed instructions", func(_, n *llm.Request) { n.Instructions = "sys!" }),
		Entry("a renamed tool", func(_, n *llm.Request) { n.Tools[0].Name = "Open" }),
		Entry("a reworded tool", func(_, n *llm.Request) { n.Tools[0].Description = "x" }),
		Entry("a changed tool schema", func(_, n *llm.Request) { n.Tools[0].Parameters = []byte(`{}`) }),
		Entry("a removed tool", func(_, n *llm.Request) { n.Tools = nil }),
		Entry("an added tool", func(_, n *llm.Request) { n.Tools = append(n.Tools, llm.Tool{Name: "Grep"}) }),
		Entry("a removed message", func(_, n *llm.Request) { n.Messages = n.Messages[:2] }),
		Entry("a changed role", func(_, n *llm.Request) { n.Messages[0].Role = llm.RoleSystem }),
		Entry("a changed part count", func(_, n *llm.Request) { n.Messages[0].Parts = n.Messages[0].Parts[:1] }),
		Entry("an added part", func(_, n *llm.Request) {
			n.Messages[0].Parts = append(n.Messages[0].Parts, llm.Part{Kind: llm.PartText, Text: "x"})
		}),
		Entry("a changed part kind", func(_, n *llm.Request) { n.Messages[0].Parts[0].Kind = llm.PartImage }),
		Entry("changed user text", func(_, n *llm.Request) { n.Messages[0].Parts[0].Text = "Look" }),
		Entry("a changed image", func(_, n *llm.Request) { n.Messages[0].Parts[1].Image = &llm.Image{MIMEType: "image/jpeg"} }),
		Entry("changed image bytes", func(p, n *llm.Request) {
			p.Messages[0].Parts[1].Image.Data, n.Messages[0].Parts[1].Image = []byte{1, 2}, &llm.Image{MIMEType: "image/png", BlobID: "b", Data: []byte{1, 3}}
		}),
		Entry("a dropped image", func(_, n *llm.Request) { n.Messages[0].Parts[1].Image = nil }),
		Entry("changed assistant text", func(_, n *llm.Request) { n.Messages[1].Assistant.Text = "T" }),
		Entry("changed thinking", func(_, n *llm.Request) { n.Messages[1].Assistant.Thinking = "" }),
		Entry("dropped replay state", func(_, n *llm.Request) { n.Messages[1].Assistant.Replay = nil }),
		Entry("changed replay bytes", func(_, n *llm.Request) { n.Messages[1].Assistant.Replay.Value = []byte("x") }),
		Entry("changed replay kind", func(_, n *llm.Request) { n.Messages[1].Assistant.Replay.Kind = llm.ProviderOpenAIResponses }),
		Entry("a changed call count", func(_, n *llm.Request) { n.Messages[1].Assistant.Calls = nil }),
		Entry("a changed call id", func(_, n *llm.Request) { n.Messages[1].Assistant.Calls[0].CallID = "d" }),
		Entry("a changed call name", func(_, n *llm.Request) { n.Messages[1].Assistant.Calls[0].Name = "Grep" }),
		Entry("re-serialised arguments", func(_, n *llm.Request) { n.Messages[1].Assistant.Calls[0].Arguments = []byte(`{ }`) }),
		Entry("an assistant turned into another kind", func(_, n *llm.Request) { n.Messages[1].Assistant = nil }),
		Entry("a user message given an assistant turn", func(_, n *llm.Request) { n.Messages[0].Assistant = &llm.Assistant{} }),
		Entry("a tool result turned into another kind", func(_, n *llm.Request) { n.Messages[2].ToolResult = nil }),
		Entry("a changed result call id", func(_, n *llm.Request) { n.Messages[2].ToolResult.CallID = "d" }),
		Entry("a changed result name", func(_, n *llm.Request) { n.Messages[2].ToolResult.Name = "Grep" }),
		Entry("re-capped result content", func(_, n *llm.Request) { n.Messages[2].ToolResult.Content = "bod" }),
		Entry("a changed error flag", func(_, n *llm.Request) { n.Messages[2].ToolResult.IsError = true }),
		Entry("a dropped result image", func(_, n *llm.Request) { n.Messages[2].ToolResult.Image = nil }),
	)

	It("agrees with IsStablePrefix on 3,000 random edits of random conversations", func() {
		rng := rand.New(rand.NewPCG(15, 11))
		for i := range 3000 {
			a := randomRequest(rng)
			b := editRequest(rng, a)
			full, shaped := both(a, b)
			Expect(shaped).To(Equal(full), "case %d: %+v then %+v", i, a, b)
		}
	})

	It("holds none of the conversation's text, tool output, arguments or image bytes", func() {
		secrets := []string{"SECRET-INSTRUCTIONS", "SECRET-USER-TEXT", "SECRET-THINKING", "SECRET-ANSWER",
			"SECRET-ARGUMENTS", "SECRET-TOOL-OUTPUT", "SECRET-TOOL-DESCRIPTION", "SECRET-IMAGE-BYTES"}
		req := llm.Request{Model: "gpt-5.1", Instructions: secrets[0],
			Tools: []llm.Tool{{Name: "Read", Description: secrets[6], Parameters: []byte(`{"type":"object"}`)}},
			Messages: []llm.Message{
				{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: secrets[1]},
					{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", Data: []byte(secrets[7])}}}},
				{ID: "a1", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: secrets[3], Thinking: secrets[2],
					Calls: []llm.ToolCall{{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"` + secrets[4] + `"}`)}}}},
				{ID: "t1", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c1", Name: "Read", Content: secrets[5]}},
			}}
		shape := prefix.ShapeOf(req)
		encoded, err := json.Marshal(shape)
		Expect(err).NotTo(HaveOccurred())
		printed := fmt.Sprintf("%#v", shape)
		for _, s := range secrets {
			Expect(string(encoded)).NotTo(ContainSubstring(s))
			Expect(string(encoded)).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(s))[:12]))
			Expect(printed).NotTo(ContainSubstring(s))
		}
		Expect(shape.Messages[1].Role).To(Equal(llm.RoleAssistant))
		Expect(shape.Messages[0].Bytes).To(Equal(int64(len(secrets[1]) + len(secrets[7]))))
	})

	It("estimates the prompt within a token per message of llm.EstimateRequest", func() {
		shape := prefix.ShapeOf(next)
		exact := llm.EstimateRequest(next)
		Expect(shape.PromptTokens()).To(BeNumerically("~", exact, len(next.Messages)+1))
		shared := next
		shared.Messages = next.Messages[:2]
		Expect(shape.PrefixTokens(2)).To(BeNumerically("~", llm.EstimateRequest(shared), 3))
		Expect(shape.PrefixTokens(0)).To(Equal(shape.PreambleTokens))
		Expect(shape.PrefixTokens(99)).To(Equal(shape.PromptTokens()))
	})

	It("does not compare shapes of different layouts", func() {
		old := prefix.ShapeOf(previous)
		old.Layout = prefix.ShapeLayout + 1
		r := prefix.CompareShapes(old, prefix.ShapeOf(next))
		Expect(r.Stable).To(BeFalse())
		Expect(r.Divergence.Field).To(Equal("layout"))
	})

	It("still locates the message of a break in a damaged stored shape", func() {
		p, n := prefix.ShapeOf(previous), prefix.ShapeOf(next)
		// One value more than its counts and flags account for: no field
		// can be named, the message still can.
		p.Messages[1].Values = append(slices.Clone(n.Messages[1].Values), prefix.Digest{0xff})
		r := prefix.CompareShapes(p, n)
		Expect(r.Divergence.Field).To(Equal("messages[1]"))
		Expect(r.Divergence.MessageID).To(Equal("r"))
	})
})

// randomRequest builds a small conversation from few distinct values, so
// that random edits often keep values equal.
func randomRequest(rng *rand.Rand) llm.Request {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	r := llm.Request{Model: pick("m1", "m2"), CacheKey: pick("", "k"), Instructions: pick("", "sys")}
	for range rng.IntN(3) {
		r.Tools = append(r.Tools, llm.Tool{Name: pick("Read", "Grep"), Description: pick("", "d"), Parameters: []byte(pick("{}", `{"a":1}`))})
	}
	for i := range rng.IntN(6) {
		r.Messages = append(r.Messages, randomMessage(rng, fmt.Sprintf("m%d", i)))
	}
	if rng.IntN(5) == 0 {
		r.Messages = append(r.Messages, llm.Message{ID: conversation.ContinueID, Role: llm.RoleUser})
	}
	return r
}

func randomMessage(rng *rand.Rand, id string) llm.Message {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	img := func() *llm.Image {
		if rng.IntN(2) == 0 {
			return nil
		}
		return &llm.Image{MIMEType: pick("image/png", "image/jpeg"), BlobID: pick("", "b"), Data: []byte(pick("", "x"))}
	}
	m := llm.Message{ID: id, Role: llm.Role(1 + rng.IntN(4))}
	for range rng.IntN(3) {
		m.Parts = append(m.Parts, llm.Part{Kind: llm.PartKind(1 + rng.IntN(2)), Text: pick("", "a", "b"), Image: img()})
	}
	if rng.IntN(2) == 0 {
		m.Assistant = &llm.Assistant{Text: pick("", "t"), Thinking: pick("", "th")}
		if rng.IntN(2) == 0 {
			m.Assistant.Replay = &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(pick("", "s"))}
		}
		for range rng.IntN(3) {
			m.Assistant.Calls = append(m.Assistant.Calls, llm.ToolCall{CallID: pick("c1", "c2"), Name: pick("Read", "Grep"), Arguments: []byte(pick("{}", "{ }"))})
		}
	}
	if rng.IntN(2) == 0 {
		m.ToolResult = &llm.ToolResult{CallID: pick("c1", "c2"), Name: pick("Read", ""), Content: pick("", "out"), IsError: rng.IntN(2) == 0, Image: img()}
	}
	return m
}

// editRequest returns a copy of r with one to three random edits, or none.
func editRequest(rng *rand.Rand, r llm.Request) llm.Request {
	out := r
	out.Tools = slices.Clone(r.Tools)
	out.Messages = slices.Clone(r.Messages)
	for range rng.IntN(4) {
		switch rng.IntN(8) {
		case 0:
			out.Model = "m3"
		case 1:
			out.Instructions += "!"
		case 2:
			if len(out.Tools) > 0 {
				out.Tools = out.Tools[:rng.IntN(len(out.Tools))]
			} else {
				out.Tools = append(out.Tools, llm.Tool{Name: "New"})
			}
		case 3, 4:
			out.Messages = append(out.Messages, randomMessage(rng, "new"))
		case 5:
			if len(out.Messages) > 0 {
				out.Messages = out.Messages[:rng.IntN(len(out.Messages))]
			}
		default:
			if len(out.Messages) > 0 {
				out.Messages[rng.IntN(len(out.Messages))] = randomMessage(rng, "edited")
			}
		}
	}
	return out
}
