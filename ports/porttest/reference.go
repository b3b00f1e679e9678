package porttest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/ports"
)

// describeReference checks a store against conversation.Log, the in-memory
// reference of the append rules: a random mix of appends, retries, stale
// writes, conflicts, branches and replacements must give the same decisions
// and the same lists in both.
func describeReference(open Factory) {
	Describe("ConversationStore.Apply against the reference conversation.Log", func() {
		It("makes the same decisions and stores the same lists for a random history", func() {
			h, ctx, conv := open(), context.Background(), uniq("conv")
			cs := h.Stores.Conversations
			_, err := cs.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			ref, err := conversation.NewLog(conv)
			Expect(err).NotTo(HaveOccurred())
			rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 7))
			var (
				past []conversation.Change
				seen = []conversation.Checkpoint{ref.Root()}
			)
			for step := range 80 {
				ch := randomChange(rng, ref, seen, past, step)
				want, wantErr := ref.Apply(ch)
				got, gotErr := cs.Apply(ctx, ports.Write{Change: ch})
				By(fmt.Sprintf("step %d: reference %v %v, store %v %v", step, want.Outcome, wantErr, got.Outcome, gotErr))
				Expect(sameError(gotErr, wantErr)).To(BeTrue(), "step %d: store %v, reference %v", step, gotErr, wantErr)
				if wantErr == nil {
					Expect(got.Outcome).To(Equal(want.Outcome), "step %d", step)
					Expect(got.Checkpoint.ID()).To(Equal(want.Checkpoint.ID()), "step %d", step)
					seen = append(seen, want.Checkpoint)
				}
				past = append(past, ch)
				head, err := cs.Head(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.ID()).To(Equal(ref.Head().ID()), "step %d", step)
			}
			for _, c := range seen {
				wantMsgs, err := ref.Messages(c.ID())
				Expect(err).NotTo(HaveOccurred())
				_, gotMsgs, err := cs.Load(ctx, c.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(gotMsgs).To(HaveIDs(messageIDs(wantMsgs)...))
			}
		})
	})
}

// randomChange picks the next write: mostly appends to the head, and now and
// then a retry of an earlier change, a stale append, a reused id with new
// content, a branch from an older checkpoint, a replacement, or an append
// that repeats a message the head already holds.
func randomChange(rng *rand.Rand, ref *conversation.Log, seen []conversation.Checkpoint, past []conversation.Change, step int) conversation.Change {
	fresh := func() conversation.Message { return text(fmt.Sprintf("m%d", step), fmt.Sprintf("message %d", step)) }
	head := ref.Head()
	switch n := rng.IntN(10); {
	case n == 0 && len(past) > 0:
		return past[rng.IntN(len(past))]
	case n == 1:
		return conversation.AppendTo(seen[rng.IntN(len(seen))], fresh())
	case n == 2 && step > 0:
		return conversation.AppendTo(head, text(fmt.Sprintf("m%d", rng.IntN(step)), "different content"))
	case n == 3:
		return conversation.BranchFrom(head.ID(), seen[rng.IntN(len(seen))], fresh())
	case n == 4:
		return conversation.ReplaceWith(head.ID(), ref.Root(), fresh(), text(fmt.Sprintf("m%d-b", step), "second"))
	case n == 5 && head.Len() > 0:
		held, err := ref.Messages(head.ID())
		Expect(err).NotTo(HaveOccurred())
		return conversation.AppendTo(head, held[rng.IntN(len(held))], fresh())
	default:
		return conversation.AppendTo(head, fresh())
	}
}

func sameError(got, want error) bool {
	switch {
	case want == nil:
		return got == nil
	case errors.Is(want, conversation.ErrStaleHead):
		return errors.Is(got, conversation.ErrStaleHead)
	case errors.Is(want, conversation.ErrMessageConflict):
		return errors.Is(got, conversation.ErrMessageConflict)
	default:
		return got != nil
	}
}

func messageIDs(msgs []conversation.Message) []string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID()
	}
	return ids
}
