package agent_test

import (
	"context"

	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/domain/conversation"
	agentv1 "keygate/gen/cursor/agent/v1"
)

func ctx() context.Context { return context.Background() }

// missingBlobs lists the blob ids a checkpoint refers to (roots and turns)
// that the client does not hold.
func missingBlobs(c *cursortest.Client, s *agentv1.ConversationStateStructure) []string {
	var missing []string
	for _, id := range append(append([][]byte{}, s.GetRootPromptMessagesJson()...), s.GetTurns()...) {
		if _, ok := c.Blob(id); !ok {
			missing = append(missing, string(id))
		}
	}
	return missing
}

// lastCheckpoint returns the last checkpoint st received.
func lastCheckpoint(st *cursortest.Stream) *agentv1.ConversationStateStructure {
	var last *agentv1.ConversationStateStructure
	for _, m := range st.Content() {
		if cp := m.GetConversationCheckpointUpdate(); cp != nil {
			last = cp
		}
	}
	Expect(last).NotTo(BeNil())
	return last
}

func texts(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}
