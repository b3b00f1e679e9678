package checkpoint_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/checkpoint"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("PendingTurn", func() {
	It("gives back the open round a staged checkpoint carries: its calls, text, reasoning and replay state", func() {
		replay := &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(`{"blocks":[{"type":"thinking","signature":"sig"}]}`)}
		st, _ := checkpoint.Staged(checkpoint.Projection{}, checkpoint.Pending{RoundID: "run-1:round:0", Text: "Reading.",
			Thinking: "Let me think.", Replay: replay, Calls: []llm.ToolCall{
				{Index: 0, CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"a"}`)},
				{Index: 1, CallID: "c2", Name: "Shell", Arguments: []byte(`{"command":"ls"}`)}}})
		id, a, ok, err := checkpoint.PendingTurn(st)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		Expect(id).To(Equal("run-1:round:0"))
		Expect(a.Text).To(Equal("Reading."))
		Expect(a.Thinking).To(Equal("Let me think."))
		Expect(a.Replay).To(Equal(replay))
		Expect(a.Calls).To(Equal([]llm.ToolCall{
			{Index: 0, CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"a"}`)},
			{Index: 1, CallID: "c2", Name: "Shell", Arguments: []byte(`{"command":"ls"}`)}}))
	})

	It("reads an entry another backend wrote, without Keygate's fields", func() {
		st := &agentv1.ConversationStateStructure{PendingToolCalls: []string{
			`{"id":"1","role":"assistant","content":[{"type":"reasoning","text":"hm","signature":"x"},{"type":"tool-call","toolCallId":"t1","toolName":"Read","args":{"path":"a"}}]}`}}
		id, a, ok, err := checkpoint.PendingTurn(st)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		Expect(id).To(BeEmpty())
		Expect(a.Calls).To(HaveLen(1))
		Expect(a.Calls[0].CallID).To(Equal("t1"))
		Expect(string(a.Calls[0].Arguments)).To(Equal(`{"path":"a"}`))
	})

	It("has nothing for a settled checkpoint, and refuses more than one entry or a call without a name", func() {
		_, _, ok, err := checkpoint.PendingTurn(&agentv1.ConversationStateStructure{})
		Expect(ok).To(BeFalse())
		Expect(err).NotTo(HaveOccurred())
		_, _, _, err = checkpoint.PendingTurn(&agentv1.ConversationStateStructure{PendingToolCalls: []string{"{}", "{}"}})
		Expect(err).To(MatchError(checkpoint.ErrManyPending))
		_, _, _, err = checkpoint.PendingTurn(&agentv1.ConversationStateStructure{PendingToolCalls: []string{
			`{"content":[{"type":"tool-call","toolCallId":"t1"}]}`}})
		Expect(err).To(HaveOccurred())
	})
})
