package conversation_test

import (
	"fmt"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// userText builds a runtime user message or fails the spec.
func userText(id, text string) conversation.Message {
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

// runtimeEvent builds a runtime message carrying an idempotency key.
func runtimeEvent(event, text string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: conversation.RuntimeID(event), Role: llm.RoleUser, Origin: conversation.OriginRuntime,
		RuntimeEventID: event, Parts: []llm.Part{{Kind: llm.PartText, Text: text}},
	})
	Expect(err).NotTo(HaveOccurred())
	return m
}

func assistantText(id, text string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
		Assistant: &llm.Assistant{Text: text},
	})
	Expect(err).NotTo(HaveOccurred())
	return m
}

// HaveMessageIDs succeeds when actual, a []conversation.Message, holds
// exactly the given ids in order.
func HaveMessageIDs(ids ...string) types.GomegaMatcher {
	return WithTransform(func(msgs []conversation.Message) []string {
		out := make([]string, len(msgs))
		for i, m := range msgs {
			out[i] = m.ID()
		}
		return out
	}, Equal(ids))
}

// BeDecided succeeds when actual, a conversation.Decision, has the outcome.
func BeDecided(outcome conversation.Outcome) types.GomegaMatcher {
	return WithTransform(func(d conversation.Decision) string { return d.Outcome.String() },
		Equal(outcome.String()))
}

func mustApply(log *conversation.Log, ch conversation.Change) conversation.Checkpoint {
	d, err := log.Apply(ch)
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), fmt.Sprintf("apply %v", d))
	return d.Checkpoint
}
