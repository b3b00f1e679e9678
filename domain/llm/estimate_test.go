package llm_test

import (
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
