package tab_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apptab "keygate/app/tab"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/tab"
)

// input is a request with the cursor at the "|" in text (removed).
func input(id, path, text string) tab.Input {
	i := strings.Index(text, "|")
	before := text[:i]
	return tab.Input{RequestID: id, Path: path, LanguageID: "go", Contents: before + text[i+1:],
		Line: strings.Count(before, "\n"), Column: len(before) - (strings.LastIndex(before, "\n") + 1)}
}

// collect is an emit that keeps the events.
func collect(evs *[]tab.Event) func(tab.Event) error {
	return func(ev tab.Event) error { *evs = append(*evs, ev); return nil }
}

func applied(contents string, evs []tab.Event) string {
	return strings.Join(tab.ApplyEvents(strings.Split(contents, "\n"), evs), "\n")
}

var _ = Describe("Tab predictions", func() {
	var (
		prov  *provider
		eps   *endpoints
		fts   *fates
		model string
		svc   *apptab.Service
		ctx   context.Context
	)
	build := func(o apptab.Options) {
		o.Provider, o.Endpoints, o.Protocols, o.Fates = prov, eps, protocols{}, fts
		o.Model = func(context.Context) (string, error) { return model, nil }
		svc = apptab.New(o)
	}
	BeforeEach(func() {
		prov, eps, fts, model = newProvider(), &endpoints{kind: kindFill}, &fates{}, "tab-model"
		ctx = identity.NewContext(context.Background(), identity.Identity{UserID: "u-1"})
		build(apptab.Options{})
	})
	file := "func f() {\n\tx := |\n}\n"

	It("answers ErrOff without a call when no Tab model is configured", func() {
		model = ""
		Expect(svc.Model(ctx)).To(BeEmpty())
		Expect(svc.Predict(ctx, input("r1", "a.go", file), collect(new([]tab.Event)))).To(MatchError(apptab.ErrOff))
		Expect(prov.Calls()).To(BeEmpty())
	})

	It("resolves the Tab model's endpoint once every couple of seconds, not on every keystroke", func() {
		now := time.Unix(1_800_000_000, 0)
		build(apptab.Options{Now: func() time.Time { return now }})
		for i := range 3 {
			prov.answers = append(prov.answers, text(llm.FinishStop, "x"))
			Expect(svc.Predict(ctx, input(fmt.Sprintf("r%d", i), "a.go", file), collect(new([]tab.Event)))).To(Succeed())
		}
		Expect(eps.resolved.Load()).To(BeEquivalentTo(1))
		now = now.Add(3 * time.Second)
		prov.answers = append(prov.answers, text(llm.FinishStop, "x"))
		Expect(svc.Predict(ctx, input("r9", "a.go", file), collect(new([]tab.Event)))).To(Succeed())
		Expect(eps.resolved.Load()).To(BeEquivalentTo(2))
		Expect(prov.Calls()).To(HaveLen(4))
	})

	It("refuses a request without a caller", func() {
		err := svc.Predict(context.Background(), input("r1", "a.go", file), collect(new([]tab.Event)))
		Expect(err).To(MatchError(apptab.ErrNoCaller))
		Expect(errors.Is(err, identity.ErrNoUser)).To(BeTrue())
	})

	It("asks a fill-in model once, as a Tab call of the request, and streams the cursor line's edit", func() {
		prov.answers = []answer{text(llm.FinishStop, "comp", "ute(1)")}
		in := input("r1", "a.go", file)
		var evs []tab.Event
		Expect(svc.Predict(ctx, in, collect(&evs))).To(Succeed())
		Expect(applied(in.Contents, evs)).To(Equal("func f() {\n\tx := compute(1)\n}\n"))
		calls := prov.Calls()
		Expect(calls).To(HaveLen(1))
		c := calls[0]
		Expect(c.Kind).To(Equal(callrecord.KindTab))
		Expect(c.RunID).To(Equal("r1"))
		Expect(c.CallID).To(Equal("tab:r1"))
		Expect(c.Endpoint.Route).To(Equal("tab-model"), "the router resolves the model per attempt")
		Expect(c.Request.Model).To(Equal("upstream-tab-model"))
		Expect(c.Request.MaxOutputTokens).To(Equal(256))
		Expect(c.Request.FillIn).NotTo(BeNil())
		Expect(c.Request.FillIn.Prefix).To(HaveSuffix("func f() {\n\tx := "))
		Expect(c.Request.FillIn.Suffix).To(Equal("\n}\n"))
		Expect(*c.Request.FillIn.Temperature).To(BeZero())
		Expect(c.Request.Messages).To(BeEmpty())
	})

	It("asks a chat model for the rewritten region and turns it into line edits", func() {
		eps.kind = kindChat
		in := input("r2", "b.go", "package p\n\nfunc f() {\n\ta := 1|\n\tb := 2\n\tc := 3\n}\n")
		prov.answers = []answer{text(llm.FinishStop, tab.RegionStart+"\npackage p\n\nfunc f() {\n\ta := 10\n",
			"\tb := 2\n\tc := 3\n\td := 4\n}\n"+tab.RegionEnd+"\n")}
		var evs []tab.Event
		Expect(svc.Predict(ctx, in, collect(&evs))).To(Succeed())
		Expect(applied(in.Contents, evs)).To(Equal("package p\n\nfunc f() {\n\ta := 10\n\tb := 2\n\tc := 3\n\td := 4\n}\n"))
		c := prov.Calls()[0]
		Expect(c.Request.FillIn).To(BeNil())
		Expect(c.Request.Instructions).To(ContainSubstring(tab.RegionStart))
		Expect(c.Request.Messages[0].Parts[0].Text).To(ContainSubstring("\ta := 1" + tab.CursorMarker + "\n"))
		Expect(c.Kind).To(Equal(callrecord.KindTab))
	})

	It("cancels the model call at once when the client aborts", func() {
		a := text(llm.FinishStop, "comp")
		a.events, a.hang = a.events[:3], true // one token, then nothing until cancelled
		prov.answers = []answer{a}
		cctx, cancel := context.WithCancel(ctx)
		got := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- svc.Predict(cctx, input("r1", "a.go", file), func(tab.Event) error {
				select {
				case got <- struct{}{}:
				default:
				}
				return nil
			})
		}()
		Eventually(got).Should(Receive(), "the first token was streamed before the answer ended")
		cancel()
		Eventually(prov.cancelled).Should(BeClosed())
		var err error
		Eventually(done).Should(Receive(&err))
		Expect(err).To(MatchError(context.Canceled))
	})

	It("answers the user typing through the suggestion without a call", func() {
		prov.answers = []answer{text(llm.FinishStop, "compute(1)")}
		Expect(svc.Predict(ctx, input("r1", "a.go", file), collect(new([]tab.Event)))).To(Succeed())
		next := input("r2", "a.go", "func f() {\n\tx := comp|\n}\n")
		var evs []tab.Event
		Expect(svc.Predict(ctx, next, collect(&evs))).To(Succeed())
		Expect(prov.Calls()).To(HaveLen(1))
		Expect(applied(next.Contents, evs)).To(Equal("func f() {\n\tx := compute(1)\n}\n"))

		By("another user typing the same is asked for")
		other := identity.NewContext(context.Background(), identity.Identity{UserID: "u-2"})
		prov.answers = []answer{text(llm.FinishStop, "ute(2)")}
		Expect(svc.Predict(other, next, collect(new([]tab.Event)))).To(Succeed())
		Expect(prov.Calls()).To(HaveLen(2))
	})

	It("stores a fate for the caller and does not offer a rejected suggestion again", func() {
		prov.answers = []answer{text(llm.FinishStop, "compute(1)"), text(llm.FinishStop, "compute(1)"),
			text(llm.FinishStop, "other()")}
		in := input("r1", "a.go", file)
		var evs []tab.Event
		Expect(svc.Predict(ctx, in, collect(&evs))).To(Succeed())
		Expect(evs).NotTo(BeEmpty())
		Expect(svc.RecordFate(ctx, "r1", tab.FateRejected)).To(Succeed())
		Expect(fts.got).To(HaveLen(1))
		Expect(fts.got[0].UserID).To(Equal("u-1"))
		Expect(fts.got[0].RequestID).To(Equal("r1"))
		Expect(fts.got[0].Fate).To(Equal(tab.FateRejected))

		evs = nil
		in.RequestID = "r2"
		Expect(svc.Predict(ctx, in, collect(&evs))).To(Succeed())
		Expect(evs).To(BeEmpty(), "the same suggestion is not offered again")
		in.RequestID = "r3"
		Expect(svc.Predict(ctx, in, collect(&evs))).To(Succeed())
		Expect(applied(in.Contents, evs)).To(Equal("func f() {\n\tx := other()\n}\n"))
	})

	It("wraps the provider's error", func() {
		err := svc.Predict(ctx, input("r1", "a.go", file), collect(new([]tab.Event)))
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("r1"))
	})

	It("forgets the least recent offers beyond its bounds", func() {
		build(apptab.Options{Limits: apptab.Limits{Entries: 1, Bytes: 1 << 20, Rejected: 1}})
		prov.answers = []answer{text(llm.FinishStop, "compute(1)"), text(llm.FinishStop, "b()"), text(llm.FinishStop, "ute(1)")}
		Expect(svc.Predict(ctx, input("r1", "a.go", file), collect(new([]tab.Event)))).To(Succeed())
		Expect(svc.Predict(ctx, input("r2", "b.go", file), collect(new([]tab.Event)))).To(Succeed())
		Expect(svc.Predict(ctx, input("r3", "a.go", "func f() {\n\tx := comp|\n}\n"), collect(new([]tab.Event)))).To(Succeed())
		Expect(prov.Calls()).To(HaveLen(3), "a.go's offer was forgotten for b.go's")
	})

	It("serves many users and files at once", func() {
		for range 40 {
			prov.answers = append(prov.answers, text(llm.FinishStop, "compute(1)"))
		}
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				defer GinkgoRecover()
				c := identity.NewContext(context.Background(), identity.Identity{UserID: fmt.Sprint("u-", i%4)})
				in := input(fmt.Sprint("r", i), fmt.Sprint(i, ".go"), file) // one file each: the typing below hits its own offer
				Expect(svc.Predict(c, in, collect(new([]tab.Event)))).To(Succeed())
				_ = svc.RecordFate(c, in.RequestID, tab.FateAccepted)
				Expect(svc.Predict(c, input(fmt.Sprint("t", i), in.Path, "func f() {\n\tx := c|\n}\n"), collect(new([]tab.Event)))).To(Succeed())
			})
		}
		wg.Wait()
	})
})
