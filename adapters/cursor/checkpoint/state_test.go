package checkpoint_test

import (
	"crypto/sha256"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/checkpoint"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// resolvable checks that every blob a state refers to, except the turns
// the client already holds, is among blobs and is addressed by its SHA-256.
func resolvable(s *agentv1.ConversationStateStructure, blobs checkpoint.Blobs) {
	ids := append(append([][]byte{}, s.GetRootPromptMessagesJson()...), s.GetTurns()...)
	if s.Summary != nil {
		ids = append(ids, s.GetSummary())
	}
	for _, id := range ids {
		if string(id) == "earlier-turn" {
			continue
		}
		data, ok := blobs[string(id)]
		Expect(ok).To(BeTrue())
		sum := sha256.Sum256(data)
		Expect(sum[:]).To(Equal(id))
	}
}

var _ = Describe("Settled and Staged", func() {
	var (
		p     checkpoint.Projection
		user  conversation.Message
		reply conversation.Message
	)
	BeforeEach(func() {
		var err error
		user, err = conversation.NewText("runtime:e1", llm.RoleUser, conversation.OriginUser, "hi")
		Expect(err).NotTo(HaveOccurred())
		reply, err = conversation.NewMessage(conversation.MessageSpec{ID: "run:assistant:0", Role: llm.RoleAssistant,
			Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: "hello"}})
		Expect(err).NotTo(HaveOccurred())
		turn := &checkpoint.Turn{RequestID: "req", User: &agentv1.UserMessage{Text: "hi", MessageId: "m1"}}
		turn.Text("hel")
		turn.Text("lo")
		id := "call-1"
		turn.Tool(&agentv1.ToolCall{ToolCallId: &id})
		p = checkpoint.Projection{
			Base:     &agentv1.ConversationStateStructure{Turns: [][]byte{[]byte("earlier-turn")}, ConversationStartedTimeZone: proto.String("Europe/Oslo")},
			Messages: []conversation.Message{user, reply}, Turn: turn, Mode: agentv1.AgentMode_AGENT_MODE_ASK, UsedTokens: 42,
		}
	})

	It("stores each message's canonical encoding as a root that decodes back", func() {
		s, blobs := checkpoint.Settled(p)
		resolvable(s, blobs)
		Expect(s.GetRootPromptMessagesJson()).To(HaveLen(2))
		back, err := conversation.DecodeMessage(blobs[string(s.GetRootPromptMessagesJson()[1])])
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Equal(reply)).To(BeTrue())
	})

	It("keeps the client's earlier turns and fields and appends the current turn", func() {
		s, blobs := checkpoint.Settled(p)
		Expect(s.GetTurns()).To(HaveLen(2))
		Expect(s.GetTurns()[0]).To(Equal([]byte("earlier-turn")))
		Expect(s.GetConversationStartedTimeZone()).To(Equal("Europe/Oslo"))
		var ts agentv1.ConversationTurnStructure
		Expect(proto.Unmarshal(blobs[string(s.GetTurns()[1])], &ts)).To(Succeed())
		steps := ts.GetAgentConversationTurn().GetSteps()
		Expect(steps).To(HaveLen(2))
		var first agentv1.ConversationStep
		Expect(proto.Unmarshal(blobs[string(steps[0])], &first)).To(Succeed())
		Expect(first.GetAssistantMessage().GetText()).To(Equal("hello"))
	})

	It("replaces the client's last turn with a continued one, keeping its user message and steps", func() {
		prior, err := proto.Marshal(&agentv1.ConversationTurnStructure{Turn: &agentv1.ConversationTurnStructure_AgentConversationTurn{
			AgentConversationTurn: &agentv1.AgentConversationTurnStructure{UserMessage: []byte("user-blob"), Steps: [][]byte{[]byte("step-blob")}}}})
		Expect(err).NotTo(HaveOccurred())
		p.Turn.User = nil
		Expect(p.Turn.Continue(prior)).To(Succeed())
		s, blobs := checkpoint.Settled(p)
		Expect(s.GetTurns()).To(HaveLen(1))
		var ts agentv1.ConversationTurnStructure
		Expect(proto.Unmarshal(blobs[string(s.GetTurns()[0])], &ts)).To(Succeed())
		at := ts.GetAgentConversationTurn()
		Expect(at.GetUserMessage()).To(Equal([]byte("user-blob")))
		Expect(at.GetSteps()).To(HaveLen(3))
		Expect(at.GetSteps()[0]).To(Equal([]byte("step-blob")))
	})

	It("sets the mode and the context ring, 200k when the window is unknown", func() {
		s, _ := checkpoint.Settled(p)
		Expect(s.GetMode()).To(Equal(agentv1.AgentMode_AGENT_MODE_ASK))
		Expect(s.GetTokenDetails().GetUsedTokens()).To(BeEquivalentTo(42))
		Expect(s.GetTokenDetails().GetMaxTokens()).To(BeEquivalentTo(checkpoint.DefaultMaxTokens))
	})

	It("puts an open round in one pending entry whose round id a resume reads back", func() {
		s, _ := checkpoint.Staged(p, checkpoint.Pending{RoundID: "run:round:0", Calls: []llm.ToolCall{
			{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"a"}`)}}})
		Expect(s.GetPendingToolCalls()).To(HaveLen(1))
		Expect(s.GetPendingToolCalls()[0]).To(And(ContainSubstring(`"toolCallId":"c1"`), ContainSubstring(`"path":"a"`)))
		id, err := checkpoint.PendingRoundID(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(id).To(Equal("run:round:0"))
	})

	It("moves the final answer from the roots to the pending entry in the staged final state", func() {
		s, _ := checkpoint.StagedFinal(p)
		Expect(s.GetRootPromptMessagesJson()).To(HaveLen(1))
		Expect(s.GetPendingToolCalls()[0]).To(ContainSubstring(`"text":"hello"`))
	})

	It("refuses to resume a state with more than one pending entry", func() {
		_, err := checkpoint.PendingRoundID(&agentv1.ConversationStateStructure{PendingToolCalls: []string{"{}", "{}"}})
		Expect(err).To(MatchError(checkpoint.ErrManyPending))
	})

	It("records a compaction's summary as a blob and counts it", func() {
		p.Summary = "the gist"
		s, blobs := checkpoint.Settled(p)
		resolvable(s, blobs)
		Expect(s.GetSelfSummaryCount()).To(BeEquivalentTo(1))
		var sum agentv1.ConversationSummary
		Expect(proto.Unmarshal(blobs[string(s.GetSummary())], &sum)).To(Succeed())
		Expect(sum.GetSummary()).To(Equal("the gist"))
		var archive agentv1.ConversationSummaryArchive
		Expect(proto.Unmarshal(blobs[string(s.GetSummaryArchive())], &archive)).To(Succeed())
		Expect(archive.GetSummaryMessage()).To(Equal(s.GetRootPromptMessagesJson()[1]))
		Expect(s.GetSummaryArchives()).To(Equal([][]byte{s.GetSummaryArchive()}))
	})
})
