package porttest

import (
	"context"
	"fmt"
	"sync/atomic"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// Harness is one open store under test.
type Harness struct {
	Stores ports.Stores
	Calls  ports.CallRecordReader
	// Console is the same store seen through the console's ports.
	Console ConsoleHarness
	// Reopen closes the store and opens it again on the same data.
	Reopen func() Harness
}

// Factory opens a fresh, empty store for one spec and registers its
// cleanup with DeferCleanup.
type Factory func() Harness

// seq makes ids unique across specs, so stores that share a database
// between specs do not collide.
var seq atomic.Int64

func uniq(prefix string) string { return fmt.Sprintf("%s-%d", prefix, seq.Add(1)) }

func text(id, s string) conversation.Message {
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime, s)
	Expect(err).NotTo(HaveOccurred())
	return m
}

func assistant(id, s string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: s},
	})
	Expect(err).NotTo(HaveOccurred())
	return m
}

func image(id, blobID string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: id, Role: llm.RoleUser, Origin: conversation.OriginRuntime,
		Parts: []llm.Part{{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", BlobID: blobID}}},
	})
	Expect(err).NotTo(HaveOccurred())
	return m
}

// apply writes one change and fails the spec on error.
func apply(ctx context.Context, cs ports.ConversationStore, runID string, ch conversation.Change) conversation.Checkpoint {
	d, err := cs.Apply(ctx, ports.Write{Change: ch, RunID: runID})
	Expect(err).NotTo(HaveOccurred())
	return d.Checkpoint
}

// HaveIDs succeeds when actual, a []conversation.Message, holds exactly the
// given message ids in order.
func HaveIDs(ids ...string) types.GomegaMatcher {
	return WithTransform(func(msgs []conversation.Message) []string {
		out := make([]string, len(msgs))
		for i, m := range msgs {
			out[i] = m.ID()
		}
		return out
	}, Equal(ids))
}

// cancelled returns an already cancelled context derived from parent.
func cancelled(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	return ctx
}
