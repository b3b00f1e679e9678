package llm_test

import (
	"math"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
)

func textMessage(role llm.Role, text string) llm.Message {
	return llm.Message{Role: role, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}}
}

var _ = Describe("llm.EstimateRequest", func() {
	It("counts each serialised ASCII character as 0.273 tokens, rounding up", func() {
		Expect(llm.EstimateMessages(nil)).To(Equal(int64(1)), `"[]" is 2 characters, 0.546 tokens`)
		Expect(llm.EstimateMessages([]llm.Message{textMessage(llm.RoleUser, strings.Repeat("a", 10000))})).
			To(BeNumerically("~", 2730, 40))
	})

	It("counts a non-ASCII character about twice as much as an ASCII one", func() {
		ascii := llm.EstimateMessages([]llm.Message{textMessage(llm.RoleUser, strings.Repeat("a", 10000))})
		wide := llm.EstimateMessages([]llm.Message{textMessage(llm.RoleUser, strings.Repeat("é", 10000))})
		Expect(wide - ascii).To(BeNumerically("~", 2770, 10))
	})

	It("counts exactly 0.273 tokens per ASCII character and 0.550 per other character of the serialised messages", func() {
		// `[{"ID":"","Role":"user","Parts":[{"Kind":"text","Text":"…"}]…}]`
		// around the text is ASCII; the text mixes ASCII, two- and
		// four-byte characters.
		text := strings.Repeat("aé😀", 1000)
		empty := llm.EstimateMessages([]llm.Message{textMessage(llm.RoleUser, "")})
		mixed := llm.EstimateMessages([]llm.Message{textMessage(llm.RoleUser, text)})
		Expect(mixed - empty).To(BeNumerically("~", (1000*273+2000*550)/1000, 1))
	})

	It("context_estimate_grows_with_prompt_history", func() {
		req := llm.Request{Instructions: "be brief", Messages: []llm.Message{textMessage(llm.RoleUser, "hi")}}
		before := llm.EstimateRequest(req)
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: strings.Repeat("x", 1000)}})
		Expect(llm.EstimateRequest(req)).To(BeNumerically(">", before+250))
		req.Tools = []llm.Tool{{Name: "Read", Description: strings.Repeat("d", 1000)}}
		Expect(llm.EstimateRequest(req)).To(BeNumerically(">", before+500))
	})

	It("does not count image bytes and leaves the caller's images untouched", func() {
		img := &llm.Image{MIMEType: "image/png", Data: make([]byte, 1<<20), BlobID: "b"}
		msgs := []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartImage, Image: img}}},
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c", Image: img}},
		}
		Expect(llm.EstimateMessages(msgs)).To(BeNumerically("<", 200))
		Expect(msgs[0].Parts[0].Image.Data).To(HaveLen(1 << 20))
		Expect(msgs[1].ToolResult.Image.Data).To(HaveLen(1 << 20))
	})
})

var _ = Describe("llm.EstimateRequest without encoding", func() {
	// Pieces of text that the JSON encoding writes differently: plain,
	// escaped as two characters, as \u00XX (control characters and HTML's
	// <, > and &), as \u2028 and \u2029, invalid UTF-8 as \ufffd, and
	// runes of two to four bytes.
	pieces := []string{"a", "Z9", " ", "\x7f", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "<", ">", "&",
		"é", "€", "😀", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xed\xa0\x80", "\xc3"}
	text := func(r *rand.Rand) string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	bytesOrNil := func(r *rand.Rand) []byte {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		return []byte(text(r))
	}
	image := func(r *rand.Rand) *llm.Image {
		if r.IntN(3) > 0 {
			return nil
		}
		return &llm.Image{MIMEType: text(r), Data: bytesOrNil(r), BlobID: text(r), Path: text(r)}
	}
	message := func(r *rand.Rand) llm.Message {
		m := llm.Message{ID: text(r), Role: llm.Role(r.IntN(300) % 256)}
		if r.IntN(2) == 0 {
			m.Parts = []llm.Part{}
			for range r.IntN(3) {
				m.Parts = append(m.Parts, llm.Part{Kind: llm.PartKind(r.IntN(256)), Text: text(r), Image: image(r)})
			}
		}
		if r.IntN(2) == 0 {
			a := &llm.Assistant{Text: text(r), Thinking: text(r)}
			if r.IntN(2) == 0 {
				a.Replay = &llm.ReplayState{Kind: llm.ProviderKind(text(r)), Value: bytesOrNil(r)}
			}
			if r.IntN(2) == 0 {
				a.Calls = []llm.ToolCall{}
				for range r.IntN(3) {
					idx := []int{0, 7, -3, 10, 99999, math.MaxInt64, math.MinInt64}[r.IntN(7)]
					a.Calls = append(a.Calls, llm.ToolCall{Index: idx, CallID: text(r), Name: text(r), Arguments: bytesOrNil(r), ArgumentError: text(r)})
				}
			}
			m.Assistant = a
		}
		if r.IntN(2) == 0 {
			m.ToolResult = &llm.ToolResult{CallID: text(r), Name: text(r), Content: text(r), IsError: r.IntN(2) == 0, Image: image(r)}
		}
		return m
	}

	It("counts what the JSON encoding of the request would, character for character", func() {
		for seed := range uint64(2000) {
			r := rand.New(rand.NewPCG(seed, 32))
			req := llm.Request{Instructions: text(r)}
			if r.IntN(3) > 0 {
				req.Tools = []llm.Tool{}
				for range r.IntN(3) {
					req.Tools = append(req.Tools, llm.Tool{Name: text(r), Description: text(r), Parameters: bytesOrNil(r)})
				}
			}
			if r.IntN(4) > 0 {
				req.Messages = []llm.Message{}
				for range r.IntN(4) {
					req.Messages = append(req.Messages, message(r))
				}
			}
			Expect(llm.EstimateRequest(req)).To(Equal(llm.EstimateRequestByJSON(req)), "seed %d", seed)
			Expect(llm.EstimateMessages(req.Messages)).To(Equal(llm.EstimateMessagesByJSON(req.Messages)), "seed %d", seed)
			// Long text, where rounding hides less.
			long := []llm.Message{textMessage(llm.RoleUser, strings.Repeat(text(r), 50))}
			Expect(llm.EstimateMessages(long)).To(Equal(llm.EstimateMessagesByJSON(long)), "seed %d", seed)
		}
	})
})
