package threatspec_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/config"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// createModel has an administrator configure the fake provider's model
// on c and returns its id.
func (c *company) createModel(provider *providertest.Server) string {
	GinkgoHelper()
	body, err := protojson.Marshal(&controlv1.CreateModelRequest{
		Settings: &controlv1.ModelSettings{DisplayName: "Fake GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
			BaseUrl: provider.URL, ModelId: "fake-gpt"},
		ApiKey: companyKey, Enabled: true,
	})
	Expect(err).NotTo(HaveOccurred())
	status, raw := c.as(root.id, root.groups, http.MethodPost, controlv1connect.ModelServiceCreateModelProcedure, body)
	Expect(status).To(Equal(http.StatusOK), string(raw))
	var created controlv1.CreateModelResponse
	Expect(protojson.Unmarshal(raw, &created)).To(Succeed())
	return created.GetModel().GetId()
}

// endedOK waits for each stream to end and expects it to have ended
// without an error.
func endedOK(sts ...*cursortest.Stream) {
	GinkgoHelper()
	for _, st := range sts {
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(st.EndError()).To(BeNil())
	}
}

// ada is a second member, whose turns mallory must not be able to use.
var ada = user{id: "ada@corp.test", groups: "staff"}

// withBudgets writes policy as the deployment's budget file.
func withBudgets(policy string) func(*config.Config) {
	file := filepath.Join(GinkgoT().TempDir(), "budgets.json")
	Expect(os.WriteFile(file, []byte(policy), 0o600)).To(Succeed())
	return func(c *config.Config) { c.BudgetsFile = file }
}

// enqueueStalled scripts n replies of p that stall until its Release.
func enqueueStalled(p *providertest.Server, n int, text string) {
	for i := range n {
		p.Enqueue(stalled(fmt.Sprint("r", i), text))
	}
}

// stalled is a provider reply that holds its call open until the
// provider's Release, then answers text: a provider call in progress.
func stalled(id, text string) providertest.Reply {
	steps := providertest.Events(providertest.ChatSSE(providertest.Turn{ID: id, Text: providertest.Words(text)}))
	return providertest.Reply{Steps: append([]providertest.Step{{Stall: true}}, steps...)}
}

// cursorTurn opens a turn through the proxy as the client does (RunSSE
// first, then the opening BidiAppend) on requestID in conv, as a subagent
// of parent when it is set (the client's parent headers).
func cursorTurn(ctx context.Context, hc *http.Client, model, requestID, conv, parent string) *cursortest.Stream {
	GinkgoHelper()
	c := cursortest.NewClient(cursorAPI, hc, requestID)
	if parent != "" {
		c.Header.Set("X-Parent-Request-Id", parent)
		c.Header.Set("X-Parent-Agent-Tool-Call-Id", "call-"+requestID)
	}
	st, err := c.Subscribe(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(st.Close)
	Expect(c.Send(ctx, cursortest.RunRequest(conv, model, "Hello"))).To(Succeed())
	return st
}

// refusal is the limit's message in the error bubble a turn ended with,
// or "" when it ended otherwise.
func refusal(st *cursortest.Stream) string {
	GinkgoHelper()
	e := st.EndError()
	if e == nil || e.Code() != connect.CodeResourceExhausted || len(e.Details()) != 1 {
		return ""
	}
	v, err := e.Details()[0].Value()
	Expect(err).NotTo(HaveOccurred())
	d, ok := v.(*aiserverv1.ErrorDetails)
	Expect(ok).To(BeTrue())
	return d.GetDetails().GetDetail()
}

const (
	runLimit      = "you already have 1 agent runs in progress (limit 1)"
	subagentLimit = "your agents already have 2 subagents running (limit 2)"
)

var _ = Describe("Threat 15: forged subagent headers run turns past the concurrent-run limit", func() {
	var (
		s            *stack
		malloryHTTP  *http.Client
		adaHTTP      *http.Client
		endedRefused func(sts ...*cursortest.Stream) []string
		inProgress   func(ctx context.Context, hc *http.Client, requestID, parent string, calls int) *cursortest.Stream
	)
	BeforeEach(func() {
		s = startKeygate(withBudgets(`{"default": {"concurrentRuns": 1, "concurrentSubagents": 2}}`))
		DeferCleanup(s.provider.Release)
		malloryHTTP = s.CursorHTTP(s.memberToken)
		_, adaToken := s.newToken(ada, "ada's laptop")
		adaHTTP = s.CursorHTTP(adaToken)
		// inProgress opens a turn of hc's user and waits until the provider
		// has seen calls calls, the last of them this turn's, stalled.
		inProgress = func(ctx context.Context, hc *http.Client, requestID, parent string, calls int) *cursortest.Stream {
			GinkgoHelper()
			st := cursorTurn(ctx, hc, s.modelID, requestID, "conv-"+requestID, parent)
			Eventually(s.provider.Requests).WithTimeout(15 * time.Second).Should(HaveLen(calls))
			return st
		}
		// endedRefused waits for every stream to end and returns their
		// refusals.
		endedRefused = func(sts ...*cursortest.Stream) []string {
			GinkgoHelper()
			var out []string
			for _, st := range sts {
				Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
				out = append(out, refusal(st))
			}
			return out
		}
	})

	It("counts turns naming made-up parents against the run limit: the provider sees one call at a time", func(ctx SpecContext) {
		enqueueStalled(s.provider, 4, "Forged.")
		By("mallory holding her one run slot with a turn whose provider call stalls")
		first := inProgress(ctx, malloryHTTP, "req-m-top", "", 1)

		By("four turns at once, each naming a parent request id nobody used")
		var forged []*cursortest.Stream
		for i := range 4 {
			forged = append(forged, cursorTurn(ctx, malloryHTTP, s.modelID, fmt.Sprint("req-forged-", i), fmt.Sprint("conv-forged-", i),
				fmt.Sprint("req-made-up-", i)))
		}
		for _, r := range endedRefused(forged...) {
			Expect(r).To(ContainSubstring(runLimit), "a made-up parent is no parent: the turn needs a run slot")
		}
		Expect(s.provider.Requests()).To(HaveLen(1), "no forged turn reached the provider")

		s.provider.Release()
		endedOK(first)
	}, SpecTimeout(90*time.Second))

	It("runs genuine subagents of a live turn beside it, within a subagent limit of their own", func(ctx SpecContext) {
		enqueueStalled(s.provider, 3, "Working.")
		By("mallory's turn holding her run slot, its provider call in progress")
		parent := inProgress(ctx, malloryHTTP, "req-m-parent", "", 1)

		By("its subagents, as the client runs them: a child request id with the parent headers")
		one := cursorTurn(ctx, malloryHTTP, s.modelID, "req-m-sub-1", "conv-m-sub-1", "req-m-parent")
		two := cursorTurn(ctx, malloryHTTP, s.modelID, "req-m-sub-2", "conv-m-sub-2", "req-m-parent")
		Eventually(s.provider.Requests).WithTimeout(15*time.Second).Should(HaveLen(3), "both subagents call the model beside their parent")

		By("a third subagent meanwhile: over the subagent limit")
		three := cursorTurn(ctx, malloryHTTP, s.modelID, "req-m-sub-3", "conv-m-sub-3", "req-m-parent")
		Expect(endedRefused(three)).To(ConsistOf(ContainSubstring(subagentLimit)))
		Expect(s.provider.Requests()).To(HaveLen(3))

		s.provider.Release()
		endedOK(parent, one, two)
	}, SpecTimeout(90*time.Second))

	It("does not honour another user's live turn as a parent", func(ctx SpecContext) {
		enqueueStalled(s.provider, 3, "Busy.")
		By("ada's turn and mallory's turn in progress, each holding its user's one run slot")
		adas := inProgress(ctx, adaHTTP, "req-ada-live", "", 1)
		mine := inProgress(ctx, malloryHTTP, "req-m-live", "", 2)

		By("mallory naming ada's live turn as parent: refused exactly as with a made-up parent")
		foreign := cursorTurn(ctx, malloryHTTP, s.modelID, "req-m-foreign", "conv-m-foreign", "req-ada-live")
		madeUp := cursorTurn(ctx, malloryHTTP, s.modelID, "req-m-madeup", "conv-m-madeup", "req-nobody-used-this")
		refused := endedRefused(foreign, madeUp)
		Expect(refused[0]).To(ContainSubstring(runLimit))
		Expect(refused[0]).To(Equal(refused[1]))
		Expect(foreign.EndError().Error()).To(Equal(madeUp.EndError().Error()))
		Expect(s.provider.Requests()).To(HaveLen(2))

		By("the same subagent naming mallory's own live turn: honoured")
		own := inProgress(ctx, malloryHTTP, "req-m-own", "req-m-live", 3)

		s.provider.Release()
		endedOK(adas, mine, own)
	}, SpecTimeout(90*time.Second))
})

var _ = Describe("Threat 15 across replicas: a subagent's parent may run on another replica", func() {
	It("honours a live parent held by another replica, and still refuses made-up parents there", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "these specs need a PostgreSQL server and never skip")
		DeferCleanup(db.Close)
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		DeferCleanup(provider.Release)
		key := secret.NewKey()
		caCert, caKey := companyCA()
		budgets := withBudgets(`{"default": {"concurrentRuns": 1, "concurrentSubagents": 2}}`)
		replica := func() *company {
			cfg := replicaConfig(db.DSN, key, caCert, caKey, provider)
			budgets(&cfg)
			return runCompany(cfg)
		}
		one, two := replica(), replica()

		model := one.createModel(provider)
		_, token := one.newToken(mallory.id)
		enqueueStalled(provider, 2, "Working.")

		By("mallory's turn on replica one, its provider call in progress")
		parent := cursorTurn(ctx, one.CursorHTTP(token), model, "req-r-parent", "conv-r-parent", "")
		Eventually(provider.Requests).WithTimeout(15 * time.Second).Should(HaveLen(1))

		By("its subagent entirely through replica two: honoured")
		child := cursorTurn(ctx, two.CursorHTTP(token), model, "req-r-child", "conv-r-child", "req-r-parent")
		Eventually(provider.Requests).WithTimeout(15 * time.Second).Should(HaveLen(2))

		By("a made-up parent through replica two: a run slot, and there is none")
		forged := cursorTurn(ctx, two.CursorHTTP(token), model, "req-r-forged", "conv-r-forged", "req-r-made-up")
		Eventually(forged.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(refusal(forged)).To(ContainSubstring(runLimit))
		Expect(provider.Requests()).To(HaveLen(2))

		provider.Release()
		endedOK(parent, child)
	}, SpecTimeout(120*time.Second))
})

var _ = Describe("Threat 16: a request id answers another user's live or recent turn differently from one nobody used", func() {
	// openingWait is the deployment's wait for an opening append, short so
	// that the spec needs no wall-clock threshold: both answers come after
	// it, from the same code.
	const openingWait = time.Second
	var (
		s           *stack
		malloryHTTP *http.Client
		adaLive     *cursortest.Stream
	)
	BeforeEach(func() {
		// ada's streams outlive this node, so not on its context.
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		s = startKeygate(func(c *config.Config) { c.OpeningWait = openingWait })
		DeferCleanup(s.provider.Release)
		malloryHTTP = s.CursorHTTP(s.memberToken)
		_, adaToken := s.newToken(ada, "ada's laptop")
		adaHTTP := s.CursorHTTP(adaToken)

		By("ada with a recent (ended) turn and a live one")
		s.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r0", Text: providertest.Words("Done.")})))
		recent := cursorTurn(ctx, adaHTTP, s.modelID, "req-ada-recent", "conv-ada-recent", "")
		Eventually(recent.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(recent.EndError()).To(BeNil())
		s.provider.Enqueue(stalled("r1", "Ada's answer."))
		adaLive = cursorTurn(ctx, adaHTTP, s.modelID, "req-ada-live", "conv-ada-live", "")
		Eventually(s.provider.Requests).WithTimeout(15 * time.Second).Should(HaveLen(2))
	})

	It("answers mallory's follow-up append alike for ada's live, ada's recent and an unused request id", func(ctx SpecContext) {
		answer := func(id string) string {
			start := time.Now()
			err := cursortest.NewClient(cursorAPI, malloryHTTP, id).SendAt(ctx, 1, cursortest.FollowUp("mallory was here"))
			AddReportEntry("follow-up on "+id, fmt.Sprintf("%v after %s", err, time.Since(start).Round(10*time.Millisecond)))
			Expect(err).To(HaveOccurred())
			return connect.CodeOf(err).String() + ": " + err.Error()
		}
		unused := answer("req-nobody-used-this")
		Expect(unused).To(HavePrefix("invalid_argument: "), "an append whose stream never opens")
		Expect(answer("req-ada-live")).To(Equal(unused))
		Expect(answer("req-ada-recent")).To(Equal(unused))
	}, SpecTimeout(60*time.Second))

	It("answers mallory's RunSSE alike for ada's live, ada's recent and an unused request id, with none of ada's frames", func(ctx SpecContext) {
		answer := func(id string) string {
			st, err := cursortest.NewClient(cursorAPI, malloryHTTP, id).Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(st.Close)
			Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
			Expect(st.Content()).To(BeEmpty())
			Expect(st.EndError()).NotTo(BeNil())
			return st.EndError().Code().String() + ": " + st.EndError().Message()
		}
		unused := answer("req-nobody-used-this")
		Expect(answer("req-ada-live")).To(Equal(unused))
		Expect(answer("req-ada-recent")).To(Equal(unused))
	}, SpecTimeout(60*time.Second))

	It("opens mallory's opening append on ada's live request id as a turn of her own, and ada's turn runs on untouched", func(ctx SpecContext) {
		s.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r2", Text: providertest.Words("Mallory's answer.")})))
		hers := cursorTurn(ctx, malloryHTTP, s.modelID, "req-ada-live", "conv-m-own", "")
		Eventually(hers.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(hers.EndError()).To(BeNil())
		Expect(hers.Texts()).To(Equal(providertest.Words("Mallory's answer.")))

		s.provider.Release()
		Eventually(adaLive.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(adaLive.EndError()).To(BeNil())
		Expect(adaLive.Texts()).To(Equal(providertest.Words("Ada's answer.")), "nothing of mallory's reached ada's stream")
	}, SpecTimeout(60*time.Second))
})
