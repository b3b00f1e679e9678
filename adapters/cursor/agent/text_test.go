package agent_test

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/provider/providertest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

var _ = Describe("Handler serving a text-only turn", func() {
	Context("with a model configured in Keygate", func() {
		var (
			h  *harness
			c  *cursortest.Client
			st *cursortest.Stream
		)
		BeforeEach(func() {
			h = newHarness(mainKind)
			h.reply(providertest.Turn{ID: "resp-1", Model: "upstream-kg-model", Text: providertest.Words("Hello from Keygate."),
				Usage: providertest.Usage{Input: 120, Output: 5}})
			c = h.env.Client("req-text")
			st = finished(open(c, cursortest.RunRequest("conv-text", "kg-model", "Say hello")))
		})

		It("streams the model's text and ends the stream cleanly", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(st.Texts()).To(Equal(providertest.Words("Hello from Keygate.")))
		})

		It("publishes the user turn before any text and ends with turn_ended, staged, settled, settled", func() {
			ks := cursortest.Kinds(st.Content())
			firstText := slices.Index(ks, "text")
			Expect(slices.Index(ks, "checkpoint:settled")).To(BeNumerically("<", firstText))
			n := len(ks)
			Expect(ks[n-4:]).To(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
		})

		It("never publishes a checkpoint before the client holds every blob it refers to", func() {
			Expect(st.Content()).To(HaveEach(WithTransform(func(m *agentv1.AgentServerMessage) []string {
				return missingBlobs(c, m.GetConversationCheckpointUpdate())
			}, BeEmpty())))
		})

		It("reports the provider's usage in turn_ended", func() {
			var ended *agentv1.TurnEndedUpdate
			for _, m := range st.Content() {
				if te := m.GetInteractionUpdate().GetTurnEnded(); te != nil {
					ended = te
				}
			}
			Expect(ended).NotTo(BeNil())
			Expect(ended.GetOutputTokens()).To(BeEquivalentTo(5))
			Expect(ended.GetInputTokens()).To(BeEquivalentTo(120))
		})

		It("stores the request context, the runtime message and the answer", func() {
			head, err := h.stores.Conversations.Head(ctx(), "conv-text")
			Expect(err).NotTo(HaveOccurred())
			_, msgs, err := h.stores.Conversations.Load(ctx(), head.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(msgs).To(HaveLen(3))
			Expect(msgs[0].Origin()).To(Equal(conversation.OriginPrompt))
			Expect(msgs[0].Text()).To(HavePrefix("<mode>\nMode: agent."), "the mode's message; the client sent no request context")
			Expect(msgs[1].Origin()).To(Equal(conversation.OriginRuntime))
			Expect(msgs[1].Text()).To(ContainSubstring("Say hello"))
			Expect(msgs[2].Role()).To(Equal(llm.RoleAssistant))
			Expect(msgs[2].Text()).To(Equal("Hello from Keygate."))
		})

		It("sends the mode's system prompt and tools to the provider", func() {
			reqs := h.provider.Requests()
			Expect(reqs).To(HaveLen(1))
			Expect(string(reqs[0].Body)).To(ContainSubstring("Mode: agent"))
			Expect(string(reqs[0].Body)).To(ContainSubstring(`"StrReplace"`))
		})

		It("projects the stored messages into the checkpoint's roots and the turn into its turns", func() {
			last := lastCheckpoint(st)
			Expect(last.GetRootPromptMessagesJson()).To(HaveLen(3))
			Expect(last.GetTurns()).To(HaveLen(1))
			Expect(last.GetPendingToolCalls()).To(BeEmpty())
		})
	})

	It("ends the turn with NotFound naming a model that is not configured in Keygate", func() {
		h := newHarness(mainKind)
		st := finished(open(h.env.Client("req-foreign"), cursortest.RunRequest("conv-f", "gpt-unknown", "hi")))
		Expect(st.EndError()).NotTo(BeNil())
		Expect(st.EndError().Code().String()).To(Equal("not_found"))
		Expect(st.EndError().Message()).To(ContainSubstring(`model "gpt-unknown" is not configured in Keygate`))
		Expect(h.provider.Requests()).To(BeEmpty())
	})

	It("ends the turn with InvalidArgument naming a fill-in-the-middle model, which cannot run the Agent, before any model call", func() {
		h := newHarness(mainKind)
		st := finished(open(h.env.Client("req-tab"), cursortest.RunRequest("conv-t", "kg-tab", "hi")))
		Expect(st.EndError()).NotTo(BeNil())
		Expect(st.EndError().Code().String()).To(Equal("invalid_argument"))
		Expect(st.EndError().Message()).To(ContainSubstring("fill-in-the-middle model for Cursor Tab"))
		Expect(h.provider.Requests()).To(BeEmpty())
	})
})

var _ = Describe("Handler with a Foreign hook", func() {
	It("hands a turn for a model Keygate does not know to the hook with its inbox untouched", func() {
		h := newHarness(mainKind)
		got := make(chan *agentv1.AgentClientMessage, 1)
		env := h.handler(agent.Options{Foreign: func(ctx context.Context, turn *transport.Turn) error {
			m, err := turn.Inbox.Next(ctx)
			if err != nil {
				return err
			}
			got <- m
			return turn.Output.Send(cursortest.TextDelta("from upstream"))
		}}, cursortest.FastTimings())
		c := env.Client("req-up")
		st := open(c, cursortest.RunRequest("conv-up", "claude-cursor", "hi"))
		Expect(c.Send(ctx(), cursortest.FollowUp("more"))).To(Succeed())
		finished(st)
		Expect(st.EndError()).To(BeNil())
		Expect(st.Texts()).To(Equal([]string{"from upstream"}))
		Expect((<-got).GetConversationAction().GetUserMessageAction().GetUserMessage().GetText()).To(Equal("more"))
		Expect(h.provider.Requests()).To(BeEmpty())
	})
})

var _ = Describe("Handler serving a follow-up on the same stream", func() {
	It("starts the next turn from the previous one's history", func() {
		h := newHarness(mainKind)
		timings := cursortest.FastTimings()
		timings.Linger = time.Second
		env := h.handler(agent.Options{}, timings)
		c := env.Client("req-linger")
		h.reply(providertest.Turn{ID: "r1", Text: []string{"First answer."}},
			providertest.Turn{ID: "r2", Text: []string{"Second answer."}})
		st := open(c, cursortest.RunRequest("conv-linger", "kg-model", "First"))
		Eventually(func() int { return countOf(cursortest.Kinds(st.Content()), "turn_ended") }).Should(Equal(1))
		Expect(c.Send(ctx(), cursortest.FollowUp("Second"))).To(Succeed())
		finished(st)
		Expect(st.EndError()).To(BeNil())
		Expect(countOf(cursortest.Kinds(st.Content()), "turn_ended")).To(Equal(2))
		Expect(st.Texts()).To(Equal([]string{"First answer.", "Second answer."}))
		body := string(h.provider.Requests()[1].Body)
		Expect(body).To(And(ContainSubstring("First answer."), ContainSubstring("Second")))
		Expect(lastCheckpoint(st).GetTurns()).To(HaveLen(2))
	})
})

func countOf(ks []string, k string) int {
	n := 0
	for _, v := range ks {
		if v == k {
			n++
		}
	}
	return n
}

var _ = Describe("Handler facing a client that cannot store blobs", func() {
	It("publishes no checkpoint the client could not resolve and still finishes the turn", func() {
		h := newHarness(mainKind)
		c := h.env.Client("req-full")
		c.RejectSets = true
		h.reply(providertest.Turn{ID: "r1", Text: []string{"Still answering."}})
		st := finished(open(c, cursortest.RunRequest("conv-full", "kg-model", "Hi")))
		Expect(st.EndError()).To(BeNil())
		ks := cursortest.Kinds(st.Content())
		Expect(ks).To(ContainElements("kv_set", "text", "turn_ended"))
		Expect(ks).NotTo(ContainElement("checkpoint:settled"))
		Expect(ks).NotTo(ContainElement("checkpoint:staged"))
		Expect(st.Texts()).To(Equal([]string{"Still answering."}))
	})
})

var _ = Describe("Handler when the provider fails", func() {
	It("ends the stream as unavailable with the provider's message and keeps the user turn", func() {
		h := newHarness(llm.ProviderOpenAIChat)
		h.provider.Enqueue(providertest.Status(500, string(providertest.ChatError("server_error", "upstream exploded"))))
		c := h.env.Client("req-fail")
		st := finished(open(c, cursortest.RunRequest("conv-fail", "kg-model", "Hi")))
		Expect(st.EndError()).NotTo(BeNil())
		Expect(st.EndError().Code().String()).To(Equal("unavailable"))
		Expect(st.EndError().Message()).To(ContainSubstring("upstream exploded"))
		Expect(cursortest.Kinds(st.Content())).NotTo(ContainElement("turn_ended"))
		Expect(lastCheckpoint(st).GetRootPromptMessagesJson()).To(HaveLen(2), "the mode's message and the user's")
	})

	It("details the error as the client's provider-error bubble, with a retry button", func() {
		h := newHarness(llm.ProviderOpenAIChat)
		h.provider.Enqueue(providertest.Status(400, string(providertest.ChatError("invalid_request_error", "bad tool schema"))))
		st := finished(open(h.env.Client("req-detail"), cursortest.RunRequest("conv-detail", "kg-model", "Hi")))
		Expect(st.EndError()).NotTo(BeNil())
		details := st.EndError().Details()
		Expect(details).To(HaveLen(1))
		v, err := details[0].Value()
		Expect(err).NotTo(HaveOccurred())
		d, ok := v.(*aiserverv1.ErrorDetails)
		Expect(ok).To(BeTrue(), "an aiserver.v1.ErrorDetails")
		Expect(d.GetError()).To(Equal(aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR))
		Expect(d.GetDetails().GetTitle()).To(Equal("Provider Error"))
		Expect(d.GetDetails().GetDetail()).To(ContainSubstring("bad tool schema"))
		Expect(d.GetDetails().GetShowRequestId()).To(BeTrue())
	})
})
