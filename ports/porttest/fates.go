package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/callrecord"
	"keygate/domain/tab"
	"keygate/ports"
)

// FateHarness is one open store under test for the fates of Tab
// suggestions, with the call recorder whose Tab records the lister joins.
type FateHarness struct {
	Recorder ports.CallRecorder
	Fates    ports.SuggestionFates
	Lister   ports.SuggestionFateLister
	Purger   ports.SuggestionFatePurger
}

// FateFactory opens a store for one spec and registers its cleanup with
// DeferCleanup. Stores may share data between specs: every spec uses its
// own user and request ids.
type FateFactory func() FateHarness

// DescribeFateStores declares the contract suite of the fate ports for one
// implementation:
//
//	var _ = porttest.DescribeFateStores("SQLite", factory)
func DescribeFateStores(name string, open FateFactory) bool {
	return Describe(name+" suggestion fates", func() {
		var (
			h     FateHarness
			ctx   context.Context
			user  string
			start time.Time
		)
		BeforeEach(func() {
			h, ctx = open(), context.Background()
			user = uniq("user")
			start = time.Now().UTC().Truncate(time.Millisecond).Add(-time.Hour)
		})

		// call records a finished call of kind for user's request at.
		call := func(kind callrecord.Kind, user, request string, at time.Time) {
			rec := callrecord.Record{CallID: uniq("call"), RunID: request, UserID: user, Kind: kind,
				Status: callrecord.StatusRunning, Timing: callrecord.Timing{RequestStarted: at}}
			Expect(h.Recorder.Start(ctx, rec)).To(Succeed())
			rec.Status, rec.Timing.Finished = callrecord.StatusCompleted, at.Add(time.Second)
			Expect(h.Recorder.Finish(ctx, rec)).To(Succeed())
		}
		fate := func(user, request string, f tab.Fate) ports.SuggestionFate {
			return ports.SuggestionFate{UserID: user, RequestID: request, Fate: f, At: start.Add(time.Minute)}
		}
		window := func(user string) []ports.SuggestionFate {
			got, err := h.Lister.SuggestionFates(ctx, ports.FateQuery{Since: start, Until: start.Add(10 * time.Minute), UserID: user})
			Expect(err).NotTo(HaveOccurred())
			return got
		}

		It("keeps one fate per request: a second replaces the first", func() {
			req := uniq("req")
			call(callrecord.KindTab, user, req, start)
			Expect(h.Fates.RecordFate(ctx, fate(user, req, tab.FatePartiallyAccepted))).To(Succeed())
			later := fate(user, req, tab.FateAccepted)
			later.At = start.Add(2 * time.Minute)
			Expect(h.Fates.RecordFate(ctx, later)).To(Succeed())
			Expect(window(user)).To(Equal([]ports.SuggestionFate{later}))
		})

		It("stores a fate without a time at the time of storing", func() {
			req := uniq("req")
			call(callrecord.KindTab, user, req, start)
			f := fate(user, req, tab.FateRejected)
			f.At = time.Time{}
			before := time.Now().Add(-time.Second)
			Expect(h.Fates.RecordFate(ctx, f)).To(Succeed())
			got := window(user)
			Expect(got).To(HaveLen(1))
			Expect(got[0].At).To(BeTemporally(">=", before))
		})

		It("lists the fates of the user's Tab requests whose calls started in the window", func() {
			other := uniq("user")
			in, late, agent, theirs, wrongUser := uniq("req-in"), uniq("req-late"), uniq("req-agent"), uniq("req-theirs"), uniq("req-wrong")
			call(callrecord.KindTab, user, in, start)
			call(callrecord.KindTab, user, in, start.Add(time.Second)) // a retry: still one fate
			call(callrecord.KindTab, user, late, start.Add(10*time.Minute))
			call(callrecord.KindAgent, user, agent, start)
			call(callrecord.KindTab, other, theirs, start)
			call(callrecord.KindTab, other, wrongUser, start)
			for _, f := range []ports.SuggestionFate{
				fate(user, in, tab.FateAccepted), fate(user, late, tab.FateAccepted), fate(user, agent, tab.FateAccepted),
				fate(other, theirs, tab.FateRejected), fate(user, wrongUser, tab.FateAccepted),
			} {
				Expect(h.Fates.RecordFate(ctx, f)).To(Succeed())
			}
			Expect(window(user)).To(Equal([]ports.SuggestionFate{fate(user, in, tab.FateAccepted)}))
			Expect(window(other)).To(Equal([]ports.SuggestionFate{fate(other, theirs, tab.FateRejected)}))
			all := window("")
			Expect(all).To(ContainElements(fate(user, in, tab.FateAccepted), fate(other, theirs, tab.FateRejected)))
			Expect(all).NotTo(ContainElement(HaveField("RequestID", BeElementOf(late, agent, wrongUser))))
		})

		It("refuses a fate without a request id or with an unknown fate, and stores nothing", func() {
			req := uniq("req")
			call(callrecord.KindTab, user, req, start)
			Expect(h.Fates.RecordFate(ctx, fate(user, "", tab.FateAccepted))).NotTo(Succeed())
			Expect(h.Fates.RecordFate(ctx, fate(user, req, 0))).NotTo(Succeed())
			Expect(h.Fates.RecordFate(ctx, fate(user, req, tab.FatePartiallyAccepted+1))).NotTo(Succeed())
			Expect(window(user)).To(BeEmpty())
		})

		It("returns the context's error when cancelled, and then has stored nothing", func() {
			req := uniq("req")
			call(callrecord.KindTab, user, req, start)
			Expect(h.Fates.RecordFate(cancelled(ctx), fate(user, req, tab.FateAccepted))).To(MatchError(context.Canceled))
			Expect(window(user)).To(BeEmpty())
			_, err := h.Lister.SuggestionFates(cancelled(ctx), ports.FateQuery{UserID: user})
			Expect(err).To(MatchError(context.Canceled))
			_, err = h.Purger.PurgeFates(cancelled(ctx), start)
			Expect(err).To(MatchError(context.Canceled))
		})

		It("purges the fates recorded before the cutoff and keeps the later ones", func() {
			old, recent := uniq("req-old"), uniq("req-recent")
			call(callrecord.KindTab, user, old, start)
			call(callrecord.KindTab, user, recent, start)
			// Times long past, so that no other spec's fates are before
			// the cutoff in a shared database.
			epoch := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
			o, r := fate(user, old, tab.FateRejected), fate(user, recent, tab.FateAccepted)
			o.At, r.At = epoch, epoch.Add(48*time.Hour)
			Expect(h.Fates.RecordFate(ctx, o)).To(Succeed())
			Expect(h.Fates.RecordFate(ctx, r)).To(Succeed())
			n, err := h.Purger.PurgeFates(ctx, epoch.Add(24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeNumerically(">=", 1))
			n, err = h.Purger.PurgeFates(ctx, epoch.Add(24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeZero())
			Expect(window(user)).To(Equal([]ports.SuggestionFate{r}))
		})
	})
}
