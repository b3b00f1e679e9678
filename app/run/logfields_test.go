package run_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/budget"
	"keygate/domain/conversation"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Engine logs", func() {
	It("name the run, its conversation and the user on ctx in every line of the run", func(ctx SpecContext) {
		core, logs := observer.New(zap.InfoLevel)
		s := runtest.NewStore()
		e, err := run.New(run.Options{Conversations: s, Runs: s.Runs(), ToolRounds: s.Rounds(), Anchors: s,
			Provider: overBudget{}, Logger: zap.New(core)})
		Expect(err).NotTo(HaveOccurred())

		msg, err := conversation.NewText("u1", llm.RoleUser, conversation.OriginRuntime, "hello")
		Expect(err).NotTo(HaveOccurred())
		runID := conversation.RunID("req-log", 1)
		h, err := e.Start(identity.NewContext(ctx, identity.Identity{UserID: "ada"}), run.PreparedRun{
			RunID: runID, CursorRequestID: "req-log", ConversationID: "conv-log", InitialMessages: []conversation.Message{msg},
			Model: run.Model{Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat}}, Action: run.Action{Kind: run.ActionStart}})
		Expect(err).NotTo(HaveOccurred())
		(&runtest.Transport{}).Drive(h)
		Eventually(h.Done()).WithTimeout(10 * time.Second).Should(BeClosed())

		failed := logs.FilterMessage("run failed").All()
		Expect(failed).To(HaveLen(1), "a refused model call fails the run")
		Expect(failed[0].ContextMap()).To(And(
			HaveKeyWithValue("run_id", runID),
			HaveKeyWithValue("conversation_id", "conv-log"),
			HaveKeyWithValue("user_id", "ada"),
		))
	}, SpecTimeout(20*time.Second))
})

// overBudget refuses every call the way a spent budget does.
type overBudget struct{}

func (overBudget) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	return nil, &budget.ExceededError{Limit: budget.LimitTokensPerDay, Used: 2, Max: 1}
}
