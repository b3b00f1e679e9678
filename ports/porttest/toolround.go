package porttest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

func describeToolRounds(open Factory) {
	Describe("ToolRoundStore", func() {
		var (
			h     Harness
			ts    ports.ToolRoundStore
			ctx   context.Context
			conv  string
			run   string
			head  conversation.Checkpoint
			round toolround.Round
		)
		BeforeEach(func() {
			h, ctx, conv = open(), context.Background(), uniq("conv")
			ts, run = h.Stores.ToolRounds, conv+"-run"
			root, err := h.Stores.Conversations.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			_, err = h.Stores.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: conv, Kind: "root"})
			Expect(err).NotTo(HaveOccurred())
			head = apply(ctx, h.Stores.Conversations, run, conversation.AppendTo(root, text("u", "read two files")))
			round, err = toolround.New(conversation.ToolRoundID(run, 0), llm.Assistant{Text: "reading", Calls: []llm.ToolCall{
				{Index: 0, CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"a"}`)},
				{Index: 1, CallID: "c2", Name: "Read", Arguments: []byte(`{"path":"b"}`)},
			}})
			Expect(err).NotTo(HaveOccurred())
			Expect(ts.Start(ctx, run, head.ID(), round)).To(Succeed())
		})

		It("commits a result together with its call in one checkpoint", func() {
			c, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c2", Content: "b"})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Settled).To(BeFalse())
			Expect(c.Checkpoint.ParentID()).To(Equal(head.ID()))
			_, msgs, err := h.Stores.Conversations.Load(ctx, c.Checkpoint.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(msgs).To(HaveIDs("u", conversation.ToolCallPartID(round.ID(), "c2"), conversation.ToolResultID(round.ID(), "c2")))
			stored, err := ts.Round(ctx, round.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Completed()).To(Equal([]string{"c2"}))
		})

		It("ignores a duplicate result and settles when the last call completes", func() {
			_, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c1", Content: "a"})
			Expect(err).NotTo(HaveOccurred())
			dup, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c1", Content: "a again"})
			Expect(err).NotTo(HaveOccurred())
			Expect(dup.Duplicate).To(BeTrue())
			last, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c2", Content: "b"})
			Expect(err).NotTo(HaveOccurred())
			Expect(last.Settled).To(BeTrue())
			Expect(last.Checkpoint.Len()).To(Equal(5))
		})

		It("writes neither the completion nor the checkpoint when the commit fails", func() {
			missing := ports.BlobID([]byte("never stored"))
			_, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c1", Content: "img",
				Image: &llm.Image{MIMEType: "image/png", BlobID: missing}})
			Expect(err).To(MatchError(ports.ErrNotFound))
			stored, err := ts.Round(ctx, round.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Completed()).To(BeEmpty())
			now, err := h.Stores.Conversations.Head(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			Expect(now.ID()).To(Equal(head.ID()))
		})

		It("rejects a commit by a preempted run with ErrNotOwner", func() {
			_, err := h.Stores.Runs.Claim(ctx, ports.RunClaim{RunID: conv + "-next", ConversationID: conv, Kind: "root"})
			Expect(err).NotTo(HaveOccurred())
			_, err = ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "c1", Content: "a"})
			Expect(err).To(MatchError(ports.ErrNotOwner))
		})

		It("rejects a result for a call the round does not hold", func() {
			_, err := ts.Commit(ctx, run, round.ID(), llm.ToolResult{CallID: "nope"})
			Expect(err).To(MatchError(toolround.ErrUnknownCall))
		})

		It("returns the context error for a cancelled context and writes nothing", func() {
			_, err := ts.Commit(cancelled(ctx), run, round.ID(), llm.ToolResult{CallID: "c1", Content: "a"})
			Expect(err).To(MatchError(context.Canceled))
			stored, err := ts.Round(ctx, round.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Completed()).To(BeEmpty())
		})

		It("interrupts every pending call in one write", func() {
			c, err := ts.Interrupt(ctx, run, round.ID(), llm.ToolResult{CallID: "c2", Content: "detached"})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Settled).To(BeTrue())
			_, msgs, err := h.Stores.Conversations.Load(ctx, c.Checkpoint.ID())
			Expect(err).NotTo(HaveOccurred())
			r, _ := msgs[2].ToolResult()
			Expect(r.Content).To(Equal(toolround.InterruptedResult))
		})

		Describe("Start", func() {
			It("is a no-op for the same round and ErrConflict for another plan under its id", func() {
				Expect(ts.Start(ctx, run, head.ID(), round)).To(Succeed())
				other, err := toolround.New(round.ID(), llm.Assistant{Calls: []llm.ToolCall{{CallID: "x", Name: "Shell"}}})
				Expect(err).NotTo(HaveOccurred())
				Expect(ts.Start(ctx, run, head.ID(), other)).To(MatchError(ports.ErrConflict))
			})

			It("rejects a base that is not the head with ErrStaleHead", func() {
				r2, err := toolround.New(conversation.ToolRoundID(run, 1), llm.Assistant{Calls: []llm.ToolCall{{CallID: "x", Name: "Shell"}}})
				Expect(err).NotTo(HaveOccurred())
				Expect(ts.Start(ctx, run, "ck_elsewhere", r2)).To(MatchError(conversation.ErrStaleHead))
			})

		})

		Describe("Round", func() {
			It("returns ErrNotFound for an unknown round", func() {
				_, err := ts.Round(ctx, uniq("round"))
				Expect(err).To(MatchError(ports.ErrNotFound))
			})
		})
	})
}
