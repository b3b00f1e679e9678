package control_test

import (
	"context"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/ports"
)

var _ = Describe("ConversationService", func() {
	var (
		a                        *api
		ctx                      context.Context
		afterQuestion, afterEdit conversation.Decision
	)
	userText := func(id, s string) conversation.Message {
		m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginUser, s)
		Expect(err).NotTo(HaveOccurred())
		return m
	}
	apply := func(ch conversation.Change) conversation.Decision {
		d, err := a.convs.Apply(ctx, ports.Write{Change: ch})
		Expect(err).NotTo(HaveOccurred())
		return d
	}

	// The user asks, gets an answer, then goes back to the question and asks
	// something else instead: two branches below the question's checkpoint.
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
		root, err := a.convs.Open(ctx, "conv-1")
		Expect(err).NotTo(HaveOccurred())
		afterQuestion = apply(conversation.AppendTo(root, userText("u1", "what is 2+2?")))
		answer, err := conversation.NewMessage(conversation.MessageSpec{ID: "a1", Role: llm.RoleAssistant,
			Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: "4"}})
		Expect(err).NotTo(HaveOccurred())
		answered := apply(conversation.AppendTo(afterQuestion.Checkpoint, answer))
		afterEdit = apply(conversation.BranchFrom(answered.Checkpoint.ID(), afterQuestion.Checkpoint,
			userText("u2", "and 3+3?")))
	})

	It("lists the conversation with its head", func() {
		resp, err := a.talks.ListConversations(ctx, connect.NewRequest(&controlv1.ListConversationsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetConversations()).To(HaveLen(1))
		Expect(resp.Msg.GetConversations()[0].GetHeadCheckpointId()).To(Equal(afterEdit.Checkpoint.ID()))
	})

	It("returns the branch tree with the fork below the question", func() {
		resp, err := a.talks.GetBranchTree(ctx, connect.NewRequest(&controlv1.GetBranchTreeRequest{ConversationId: "conv-1"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetCheckpoints()).To(HaveLen(4))
		children := 0
		for _, c := range resp.Msg.GetCheckpoints() {
			if c.GetParentId() == afterQuestion.Checkpoint.ID() {
				children++
			}
		}
		Expect(children).To(Equal(2))
		Expect(resp.Msg.GetHeadCheckpointId()).To(Equal(afterEdit.Checkpoint.ID()))
	})

	It("shows the messages of a checkpoint as text, oldest first", func() {
		resp, err := a.talks.GetCheckpointMessages(ctx, connect.NewRequest(&controlv1.GetCheckpointMessagesRequest{
			CheckpointId: afterEdit.Checkpoint.ID()}))
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for _, m := range resp.Msg.GetMessages() {
			got = append(got, m.GetRole()+": "+m.GetText())
		}
		Expect(got).To(Equal([]string{"user: what is 2+2?", "user: and 3+3?"}))
	})

	It("answers NotFound for an unknown conversation", func() {
		_, err := a.talks.GetBranchTree(ctx, connect.NewRequest(&controlv1.GetBranchTreeRequest{ConversationId: "nope"}))
		Expect(err).To(HaveConnectCode(connect.CodeNotFound))
	})
})
