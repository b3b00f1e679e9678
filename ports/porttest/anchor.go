package porttest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/compaction"
	"keygate/ports"
)

func describeContextAnchors(open Factory) {
	Describe("ContextAnchorStore", func() {
		var (
			cs   ports.ContextAnchorStore
			ctx  context.Context
			conv string
		)
		BeforeEach(func() { cs, ctx, conv = open().Stores.ContextAnchors, context.Background(), uniq("conv") })

		It("replaces the anchor of a conversation and forgets it on a zero anchor", func() {
			_, err := cs.ContextAnchor(ctx, conv)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(cs.PutContextAnchor(ctx, conv, compaction.Anchor{ContextTokens: 1200, MessageCount: 4})).To(Succeed())
			Expect(cs.PutContextAnchor(ctx, conv, compaction.Anchor{ContextTokens: 5300, MessageCount: 9})).To(Succeed())
			Expect(cs.ContextAnchor(ctx, conv)).To(Equal(compaction.Anchor{ContextTokens: 5300, MessageCount: 9}))
			Expect(cs.PutContextAnchor(ctx, conv, compaction.Anchor{})).To(Succeed())
			_, err = cs.ContextAnchor(ctx, conv)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
