package projection_test

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/domain/toolround"
)

func user(id, text string) conversation.Message {
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

func assistant(id string, a llm.Assistant) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, Assistant: &a})
	Expect(err).NotTo(HaveOccurred())
	return m
}

func toolResult(id, callID, content string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleTool, Origin: conversation.OriginTool,
		ToolResult: &llm.ToolResult{CallID: callID, Content: content}})
	Expect(err).NotTo(HaveOccurred())
	return m
}

// commitAll runs a round and returns its stored messages, results committed
// in the given completion order.
func commitAll(roundID string, a llm.Assistant, order ...string) []conversation.Message {
	round, err := toolround.New(roundID, a)
	Expect(err).NotTo(HaveOccurred())
	var msgs []conversation.Message
	for _, id := range order {
		var c toolround.Commit
		round, c, err = round.Commit(llm.ToolResult{CallID: id, Content: "result of " + id})
		Expect(err).NotTo(HaveOccurred())
		msgs = append(msgs, c.Messages...)
	}
	return msgs
}

func calls(ids ...string) []llm.ToolCall {
	out := make([]llm.ToolCall, len(ids))
	for i, id := range ids {
		out[i] = llm.ToolCall{Index: i, CallID: id, Name: "Read", Arguments: []byte(`{"path":"/` + id + `"}`)}
	}
	return out
}

var _ = Describe("projection.History", func() {
	It("merges a tool round into one assistant message with calls by original index, then results in completion order", func() {
		stored := append([]conversation.Message{user("u", "read three files")},
			commitAll("run:round:0", llm.Assistant{Text: "reading", Thinking: "t", Calls: calls("a", "b", "c")}, "c", "a", "b")...)

		got, err := projection.History(stored)
		Expect(err).NotTo(HaveOccurred())

		Expect(got).To(HaveLen(5))
		Expect(got[1].ID).To(Equal("run:round:0"))
		Expect(got[1].Assistant.Text).To(Equal("reading"))
		Expect(got[1].Assistant.Thinking).To(Equal("t"))
		Expect(got[1].Assistant.Calls).To(HaveExactElements(
			HaveField("CallID", "a"), HaveField("CallID", "b"), HaveField("CallID", "c")))
		Expect([]string{got[2].ToolResult.CallID, got[3].ToolResult.CallID, got[4].ToolResult.CallID}).
			To(Equal([]string{"c", "a", "b"}))
	})

	It("provider_tool_use_waits_for_client_result_then_calls_provider_again: the stored result immediately follows its call", func() {
		stored := commitAll("run:round:0", llm.Assistant{Calls: calls("read")}, "read")
		Expect(stored[0].ToolRoundID()).To(Equal("run:round:0"))
		Expect(stored[1].ID()).To(Equal(conversation.ToolResultID("run:round:0", "read")))
	})

	It("keeps an imported assistant message with several calls and its results as they are", func() {
		stored := []conversation.Message{
			user("u", "go"),
			assistant("a", llm.Assistant{Calls: calls("x", "y")}),
			toolResult("rx", "x", "1"), toolResult("ry", "y", "2"),
			assistant("final", llm.Assistant{Text: "done"}),
		}
		got, err := projection.History(stored)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(HaveLen(5))
	})

	DescribeTable("refuses histories a provider would reject",
		func(stored func() []conversation.Message, callID string) {
			_, err := projection.History(stored())
			Expect(err).To(MatchError(projection.ErrInvalidHistory))
			Expect(err.Error()).To(ContainSubstring(callID))
		},
		Entry("every assistant tool call has a result", func() []conversation.Message {
			return []conversation.Message{assistant("a", llm.Assistant{Calls: calls("x", "y")}), toolResult("rx", "x", "1")}
		}, `"y"`),
		Entry("a call's result comes before the next user message", func() []conversation.Message {
			return []conversation.Message{assistant("a", llm.Assistant{Calls: calls("x")}), user("u", "hi"), toolResult("rx", "x", "1")}
		}, `"x"`),
		Entry("a tool result answers an open call", func() []conversation.Message {
			return []conversation.Message{user("u", "hi"), toolResult("rx", "x", "1")}
		}, `"x"`),
		Entry("a call is answered once", func() []conversation.Message {
			return []conversation.Message{assistant("a", llm.Assistant{Calls: calls("x")}), toolResult("r1", "x", "1"), toolResult("r2", "x", "2")}
		}, `"x"`),
	)

	It("oversized_tool_results_are_bounded_only_in_provider_projection", func() {
		huge := strings.Repeat("h", 1<<20)
		round, _ := toolround.New("r", llm.Assistant{Calls: calls("x")})
		_, c, err := round.Commit(llm.ToolResult{CallID: "x", Content: huge})
		Expect(err).NotTo(HaveOccurred())

		got, err := projection.History(c.Messages)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(got[1].ToolResult.Content)).To(BeNumerically("<=", projection.ToolResultLimit))
		Expect(got[1].ToolResult.Content).To(ContainSubstring("narrower scope"))

		stored, _ := c.Messages[1].ToolResult()
		Expect(stored.Content).To(HaveLen(1 << 20))
	})
})

var _ = Describe("projection.CapToolResult", func() {
	DescribeTable("bounds text for the provider while keeping its head and tail",
		func(content string, limit int, unchanged bool) {
			got := projection.CapToolResult(content, limit)
			Expect(len(got)).To(BeNumerically("<=", limit))
			Expect(utf8.ValidString(got)).To(BeTrue())
			if unchanged {
				Expect(got).To(Equal(content))
				return
			}
			Expect(got).To(HavePrefix(content[:8]))
			Expect(got).To(HaveSuffix(content[len(content)-8:]))
			Expect(got).To(ContainSubstring("Re-run the tool"))
		},
		Entry("text within the limit is unchanged", "short", 100, true),
		Entry("text at the limit is unchanged", strings.Repeat("x", 300), 300, true),
		Entry("long text keeps head and tail around a note", "HEAD-123"+strings.Repeat("m", 5000)+"TAIL-456", 400, false),
		Entry("multi-byte text is never split inside a rune", "HEADéééé"+strings.Repeat("é", 5000)+"ééééTAIL", 401, false),
	)

	It("returns only a bounded note when the limit is smaller than the note", func() {
		Expect(len(projection.CapToolResult(strings.Repeat("x", 100), 10))).To(BeNumerically("<=", 10))
	})
})

var _ = Describe("projection.Request", func() {
	var (
		prompt   projection.Prompt
		settings projection.Settings
	)

	BeforeEach(func() {
		prompt = projection.Prompt{Instructions: "You are an agent.", Tools: []llm.Tool{{Name: "Read", Parameters: []byte(`{"type":"object"}`)}}}
		settings = projection.Settings{Model: "m", MaxOutputTokens: 100, CacheKey: projection.CacheKey("conv")}
	})

	It("assistant_terminated_history_is_sent_with_a_user_tail", func() {
		stored := []conversation.Message{user("u", "hi"), assistant("run:assistant:0", llm.Assistant{Text: "hello"})}
		req, err := projection.Request(stored, prompt, settings)
		Expect(err).NotTo(HaveOccurred())
		last := req.Messages[len(req.Messages)-1]
		Expect(last.ID).To(Equal(conversation.ContinueID))
		Expect(last.Role).To(Equal(llm.RoleUser))
		Expect(last.Parts[0].Text).To(Equal(projection.ContinueText))
		Expect(stored).To(HaveLen(2), "the tail is never part of the checkpoint")
	})

	It("adds no tail when history already ends with a user message", func() {
		req, err := projection.Request([]conversation.Message{user("u", "hi")}, prompt, settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(req.Messages).To(HaveLen(1))
		Expect(req.Model).To(Equal("m"))
		Expect(req.Instructions).To(Equal("You are an agent."))
		Expect(req.Tools).To(HaveLen(1))
	})

	It("is a pure function of the checkpoint: two runs and their retries project identical requests", func() {
		stored := append([]conversation.Message{user("runtime:e1", "read")},
			commitAll(conversation.ToolRoundID("req-1:0000abcd", 0), llm.Assistant{Calls: calls("x")}, "x")...)
		first, err := projection.Request(stored, prompt, settings)
		Expect(err).NotTo(HaveOccurred())
		second, err := projection.Request(stored, prompt, settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(second).To(Equal(first))

		By("no run id, provider call id or time reaches a model-visible field")
		visible := first
		for i := range visible.Messages {
			visible.Messages[i].ID = ""
		}
		body, err := json.Marshal(visible)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).NotTo(ContainSubstring("req-1"))
		Expect(string(body)).NotTo(ContainSubstring(conversation.ProviderCallID("req-1:0000abcd", 0, 0)))
	})

	It("refuses a history with a dangling call", func() {
		_, err := projection.Request([]conversation.Message{assistant("a", llm.Assistant{Calls: calls("x")})}, prompt, settings)
		Expect(err).To(MatchError(projection.ErrInvalidHistory))
	})

	It("derives the cache key from the conversation alone", func() {
		Expect(projection.CacheKey("conv")).To(Equal(projection.CacheKey("conv")))
		Expect(projection.CacheKey("conv")).NotTo(Equal(projection.CacheKey("other")))
	})
})

var _ = Describe("projection.Request on retry", func() {
	It("provider_failure_retries_from_the_current_checkpoint: every attempt sends the identical request", func() {
		stored := []conversation.Message{user("runtime:e1", "go")}
		attempts := make([]llm.Request, 3)
		for i := range attempts {
			var err error
			attempts[i], err = projection.Request(stored, projection.Prompt{Instructions: "x"}, projection.Settings{Model: "m"})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(attempts[1]).To(Equal(attempts[0]))
		Expect(attempts[2]).To(Equal(attempts[0]))
	})

	It("read_image_is_loaded_only_for_the_provider_projection: the stored result keeps a blob reference", func() {
		round, _ := toolround.New("r", llm.Assistant{Calls: calls("img")})
		_, c, err := round.Commit(llm.ToolResult{CallID: "img", Content: "image", Image: &llm.Image{MIMEType: "image/png", BlobID: "sha256:1"}})
		Expect(err).NotTo(HaveOccurred())
		got, err := projection.History(c.Messages)
		Expect(err).NotTo(HaveOccurred())
		Expect(got[1].ToolResult.Image.BlobID).To(Equal("sha256:1"))
		Expect(got[1].ToolResult.Image.Data).To(BeEmpty(), "bytes are hydrated by the application, on the provider view only")
	})
})

var _ = Describe("projection.History across rounds", func() {
	It("keeps two rounds apart when the provider reused a call id", func() {
		stored := append(commitAll("run:round:0", llm.Assistant{Calls: calls("call-1")}, "call-1"),
			commitAll("run:round:1", llm.Assistant{Calls: calls("call-1")}, "call-1")...)
		got, err := projection.History(stored)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(HaveLen(4))
		Expect(got[0].ID).To(Equal("run:round:0"))
		Expect(got[2].ID).To(Equal("run:round:1"))
	})
})
