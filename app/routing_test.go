package app_test

import (
	"context"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	appcontrol "keygate/app/control"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("A Cursor turn on an alias", func() {
	It("completes on the second deployment when the first answers 503, in one engine call, and the conversation stays there", func(ctx SpecContext) {
		east, west := providertest.NewServer(), providertest.NewServer()
		DeferCleanup(east.Close)
		DeferCleanup(west.Close)
		server, alias := newStack(ctx, stackOptions{user: identity.Local,
			configure: func(ctx context.Context, uc useCases, eastModel string) string {
				p, err := uc.providers.Create(ctx, appcontrol.ProviderSettings{Name: "west", ProviderKind: llm.ProviderOpenAIChat,
					BaseURL: west.URL, Region: "west"}, []appcontrol.NewKey{{Key: "sk-west-0123456789"}})
				Expect(err).NotTo(HaveOccurred())
				westModel, err := uc.models.Create(ctx, appcontrol.ModelSettings{DisplayName: "West", ProviderID: p.ID,
					ModelID: "fake-gpt-west", SupportsTools: true}, "", true)
				Expect(err).NotTo(HaveOccurred())
				a, err := uc.aliases.Create(ctx, appcontrol.AliasSettings{DisplayName: "Fake GPT anywhere",
					Targets: []ports.AliasTarget{{ModelID: eastModel}, {ModelID: westModel.Config.ID}}}, true)
				Expect(err).NotTo(HaveOccurred())
				return a.Alias.ID
			}}, east.URL)
		turn := func(requestID, text string) *cursortest.Stream {
			c := cursortest.NewClient(server.URL, server.Client(), requestID)
			st, err := c.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(st.Close)
			Expect(c.Send(ctx, cursortest.RunRequest("conv-alias", alias, text))).To(Succeed())
			Eventually(st.Ended).WithTimeout(15 * time.Second).Should(BeTrue())
			return st
		}

		east.Enqueue(providertest.Status(http.StatusServiceUnavailable, `{"error":{"message":"overloaded"}}`))
		west.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("Hello from the west.")})))
		first := turn("req-alias-1", "Hello")
		Expect(first.EndError()).To(BeNil())
		Expect(strings.Join(first.Texts(), "")).To(Equal("Hello from the west."))
		Expect(east.Requests()).To(HaveLen(1))
		Expect(west.Requests()).To(HaveLen(1), "the router moved the call at once; the engine did not wait to retry")

		By("the next turn of the conversation going to the west directly")
		west.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("Still west.")})))
		second := turn("req-alias-2", "Again")
		Expect(second.EndError()).To(BeNil())
		Expect(strings.Join(second.Texts(), "")).To(Equal("Still west."))
		Expect(east.Requests()).To(HaveLen(1))
	}, SpecTimeout(60*time.Second))
})
