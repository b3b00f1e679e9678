package porttest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/compaction"
	"keygate/domain/llm"
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

func describePrompts(open Factory) {
	Describe("PromptStore", func() {
		It("returns the request stored for a call, replaced when stored again", func() {
			ps, ctx, call := open().Stores.Prompts, context.Background(), uniq("call")
			req := llm.Request{
				Model: "gpt-5.1", Instructions: "be brief", CacheKey: "conv-1",
				Tools:    []llm.Tool{{Name: "Read", Parameters: []byte(`{"type":"object"}`)}},
				Messages: []llm.Message{{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}}},
			}
			Expect(ps.PutPrompt(ctx, call, llm.Request{Model: "old"})).To(Succeed())
			Expect(ps.PutPrompt(ctx, call, req)).To(Succeed())
			Expect(ps.Prompt(ctx, call)).To(Equal(req))
			_, err := ps.Prompt(ctx, uniq("call"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
