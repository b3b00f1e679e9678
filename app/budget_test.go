package app_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/identity"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// limitBubble is the error bubble the client shows for a turn's end error.
func limitBubble(e *connect.Error) *aiserverv1.ErrorDetails {
	Expect(e).NotTo(BeNil(), "the turn ended with an error")
	Expect(e.Code()).To(Equal(connect.CodeResourceExhausted))
	Expect(e.Details()).To(HaveLen(1))
	v, err := e.Details()[0].Value()
	Expect(err).NotTo(HaveOccurred())
	d, ok := v.(*aiserverv1.ErrorDetails)
	Expect(ok).To(BeTrue())
	Expect(d.GetDetails().GetTitle()).To(Equal("Keygate Limit Reached"))
	Expect(d.GetDetails().GetIsRetryable()).To(BeFalse())
	return d
}

var _ = Describe("Budgets on Cursor turns", func() {
	var (
		provider *providertest.Server
		start    func(ctx context.Context, requestID, conv string) *cursortest.Stream
	)
	// stack starts Keygate with policy as its budget file, Cursor requests
	// coming from ada.
	stack := func(ctx context.Context, policy string) {
		file := filepath.Join(GinkgoT().TempDir(), "budgets.json")
		Expect(os.WriteFile(file, []byte(policy), 0o600)).To(Succeed())
		server, modelID := newStack(ctx, stackOptions{budgets: file, user: identity.Identity{UserID: "ada"}}, provider.URL)
		start = func(ctx context.Context, requestID, conv string) *cursortest.Stream {
			c := cursortest.NewClient(server.URL, server.Client(), requestID)
			st, err := c.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(st.Close)
			Expect(c.Send(ctx, cursortest.RunRequest(conv, modelID, "Hello"))).To(Succeed())
			return st
		}
	}
	BeforeEach(func() {
		provider = providertest.NewServer()
		DeferCleanup(provider.Close)
		DeferCleanup(provider.Release)
	})

	It("stops a turn once the user's tokens for the day are spent, before calling the provider", func(ctx SpecContext) {
		stack(ctx, `{"default": {"tokensPerDay": 50}}`)
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r1", Text: providertest.Words("Hi there."),
			Usage: providertest.Usage{Input: 40, Output: 20}})))

		By("counting the first turn's 60 tokens")
		first := start(ctx, "req-b1", "conv-b1")
		Eventually(first.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
		Expect(first.EndError()).To(BeNil())

		By("refusing the next turn with the budget's message")
		second := start(ctx, "req-b2", "conv-b2")
		Eventually(second.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
		d := limitBubble(second.EndError())
		Expect(d.GetDetails().GetDetail()).To(HavePrefix("Keygate budget reached: you used 60 of your 50 tokens for today."))
		Expect(provider.Requests()).To(HaveLen(1), "the refused turn never reached the provider")
	}, SpecTimeout(60*time.Second))

	It("refuses a second concurrent turn while the first holds the user's only run slot, and frees it after", func(ctx SpecContext) {
		stack(ctx, `{"default": {"concurrentRuns": 1}}`)
		steps := providertest.Events(providertest.ChatSSE(providertest.Turn{ID: "r1", Text: providertest.Words("Slow answer.")}))
		provider.Enqueue(providertest.Reply{Steps: append([]providertest.Step{{Stall: true}}, steps...)})
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r3", Text: providertest.Words("Now it works.")})))

		By("holding the slot with a turn whose provider stalls")
		first := start(ctx, "req-c1", "conv-c1")
		Eventually(provider.Requests).WithTimeout(15 * time.Second).Should(HaveLen(1))

		By("refusing another turn meanwhile")
		second := start(ctx, "req-c2", "conv-c2")
		Eventually(second.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
		d := limitBubble(second.EndError())
		Expect(d.GetDetails().GetDetail()).To(ContainSubstring("you already have 1 agent runs in progress (limit 1)"))

		By("freeing the slot when the first turn ends")
		provider.Release()
		Eventually(first.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
		Expect(first.EndError()).To(BeNil())
		third := start(ctx, "req-c3", "conv-c3")
		Eventually(third.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
		Expect(third.EndError()).To(BeNil())
	}, SpecTimeout(60*time.Second))
})
