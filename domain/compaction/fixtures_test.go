package compaction_test

import (
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

func ctxMsg(event, text string) conversation.Message {
	return channelMsg(conversation.ContextEnvironment, event, text)
}

// channelMsg is a request-context message of channel ch.
func channelMsg(ch conversation.ContextChannel, event, text string) conversation.Message {
	m, err := conversation.NewText(conversation.ContextID(ch, event), llm.RoleUser, conversation.OriginPrompt, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

func userMsg(event, text string) conversation.Message {
	m, err := conversation.NewText(conversation.RuntimeID(event), llm.RoleUser, conversation.OriginRuntime, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

func answer(id, text string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{ID: id, Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: text}})
	Expect(err).NotTo(HaveOccurred())
	return m
}

func messageIDs(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID()
	}
	return out
}

// ConsistOfIDs succeeds when actual, a []conversation.Message, holds exactly
// the ids in order.
func ConsistOfIDs(ids ...string) types.GomegaMatcher {
	return WithTransform(messageIDs, Equal(ids))
}

// EndWithAUserMessage succeeds when actual, an llm.Request, ends with a
// user message.
func EndWithAUserMessage() types.GomegaMatcher {
	return WithTransform(func(r llm.Request) llm.Role { return r.Messages[len(r.Messages)-1].Role }, Equal(llm.RoleUser))
}
