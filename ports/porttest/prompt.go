package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

func samplePrompt() llm.Request {
	return llm.Request{
		Model: "gpt-5.1", Instructions: "be brief", CacheKey: "conv-1", PromptName: "agent", SharedTools: 1,
		Tools: []llm.Tool{{Name: "Read", Description: "reads a file", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "what is in main.go?"},
				{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}}},
			{ID: "a1", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "reading", Thinking: "look first",
				Replay: &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte("sig")},
				Calls:  []llm.ToolCall{{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"main.go"}`)}}}},
			{ID: "t1", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c1", Name: "Read", Content: "package main"}},
		},
	}
}

func describePrompts(open Factory) {
	Describe("PromptStore", func() {
		var (
			ps   ports.PromptStore
			ctx  context.Context
			call string
			at   time.Time
		)
		BeforeEach(func() {
			ps, ctx, call = open().Stores.Prompts, context.Background(), uniq("call")
			at = time.Now().UTC().Truncate(time.Millisecond)
		})
		whole := func(req llm.Request, at time.Time) ports.StoredPrompt {
			return ports.StoredPrompt{At: at, Request: &req}
		}
		shaped := func(req llm.Request, at time.Time) ports.StoredPrompt {
			s := prefix.ShapeOf(req)
			return ports.StoredPrompt{At: at, Shape: &s}
		}

		It("returns the whole request stored for a call, replaced when stored again", func() {
			Expect(ps.PutPrompt(ctx, call, whole(llm.Request{Model: "old"}, at))).To(Succeed())
			Expect(ps.PutPrompt(ctx, call, whole(samplePrompt(), at))).To(Succeed())
			got, err := ps.Prompt(ctx, call)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Shape).To(BeNil())
			Expect(got.Request).To(Equal(new(samplePrompt())))
			Expect(got.At).To(BeTemporally("==", at))
		})

		It("returns a shape as stored, digests, roles, sizes and estimates included", func() {
			want := prefix.ShapeOf(samplePrompt())
			Expect(ps.PutPrompt(ctx, call, shaped(samplePrompt(), at))).To(Succeed())
			got, err := ps.Prompt(ctx, call)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Request).To(BeNil())
			Expect(got.Shape).To(Equal(&want))
			Expect(got.At).To(BeTemporally("==", at))
			Expect(prefix.CompareShapes(*got.Shape, prefix.ShapeOf(samplePrompt())).Stable).To(BeTrue())
		})

		It("replaces one kind with the other when a call is stored again", func() {
			Expect(ps.PutPrompt(ctx, call, whole(samplePrompt(), at))).To(Succeed())
			Expect(ps.PutPrompt(ctx, call, shaped(samplePrompt(), at))).To(Succeed())
			got, err := ps.Prompt(ctx, call)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Request).To(BeNil())
			Expect(got.Shape).NotTo(BeNil())
		})

		It("refuses a prompt holding neither or both kinds, and stores nothing", func() {
			both := whole(samplePrompt(), at)
			both.Shape = shaped(samplePrompt(), at).Shape
			Expect(ps.PutPrompt(ctx, call, both)).NotTo(Succeed())
			Expect(ps.PutPrompt(ctx, call, ports.StoredPrompt{At: at})).NotTo(Succeed())
			_, err := ps.Prompt(ctx, call)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("answers ErrNotFound for a call with no prompt", func() {
			_, err := ps.Prompt(ctx, call)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("purges the prompts of both kinds of calls started before the cutoff and keeps the younger ones", func() {
			oldWhole, oldShape, young, edge := call, uniq("call"), uniq("call"), uniq("call")
			Expect(ps.PutPrompt(ctx, oldWhole, whole(samplePrompt(), at.Add(-48*time.Hour)))).To(Succeed())
			Expect(ps.PutPrompt(ctx, oldShape, shaped(samplePrompt(), at.Add(-48*time.Hour)))).To(Succeed())
			Expect(ps.PutPrompt(ctx, young, shaped(samplePrompt(), at))).To(Succeed())
			Expect(ps.PutPrompt(ctx, edge, whole(samplePrompt(), at.Add(-24*time.Hour)))).To(Succeed())
			n, err := ps.PurgePrompts(ctx, at.Add(-24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeNumerically(">=", 2))
			for _, id := range []string{oldWhole, oldShape} {
				_, err := ps.Prompt(ctx, id)
				Expect(err).To(MatchError(ports.ErrNotFound), id)
			}
			for _, id := range []string{young, edge} {
				_, err := ps.Prompt(ctx, id)
				Expect(err).NotTo(HaveOccurred(), "a prompt started at or after the cutoff is kept: %s", id)
			}
			again, err := ps.PurgePrompts(ctx, at.Add(-24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(again).To(BeZero())
		})

		It("stamps a prompt stored without a start with the time of storing, so retention does not take it for ancient", func() {
			before := time.Now().Add(-time.Second)
			Expect(ps.PutPrompt(ctx, call, ports.StoredPrompt{Shape: shaped(samplePrompt(), time.Time{}).Shape})).To(Succeed())
			got, err := ps.Prompt(ctx, call)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.At).To(BeTemporally(">=", before))
			_, err = ps.PurgePrompts(ctx, before)
			Expect(err).NotTo(HaveOccurred())
			_, err = ps.Prompt(ctx, call)
			Expect(err).NotTo(HaveOccurred())
		})

		It("returns the context's error when cancelled", func() {
			Expect(ps.PutPrompt(cancelled(ctx), call, whole(samplePrompt(), at))).To(MatchError(context.Canceled))
			_, err := ps.Prompt(cancelled(ctx), call)
			Expect(err).To(MatchError(context.Canceled))
			_, err = ps.PurgePrompts(cancelled(ctx), at)
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}
