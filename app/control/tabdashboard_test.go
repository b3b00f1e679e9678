package control_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/domain/tab"
	"keygate/ports"
)

// callList is a ports.CallLister over fixed records that keeps the query.
type callList struct {
	recs []callrecord.Record
	q    ports.CallQuery
}

func (c *callList) CallRecords(_ context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	c.q = q
	return c.recs, nil
}

// fateList is a ports.SuggestionFateLister over fixed fates that keeps the
// query.
type fateList struct {
	fates []ports.SuggestionFate
	q     *ports.FateQuery
}

func (f *fateList) SuggestionFates(_ context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error) {
	f.q = &q
	return f.fates, nil
}

var _ = Describe("Dashboard's Tab figures", func() {
	var (
		calls *callList
		fates *fateList
		d     *control.Dashboard
		start time.Time
		seq   int
	)
	// call is a finished call of kind for user's request on model, started
	// at start+at, with its first text ttft later (none when 0).
	call := func(kind callrecord.Kind, user, request, model string, at, ttft time.Duration, status callrecord.Status) callrecord.Record {
		seq++
		r := callrecord.Record{CallID: request + "-" + string(rune('a'+seq)), RunID: request, UserID: user, Kind: kind,
			Model: callrecord.ModelSnapshot{ModelID: model}, Status: status,
			Timing: callrecord.Timing{RequestStarted: start.Add(at), Finished: start.Add(at + time.Second)},
			Usage:  &llm.Usage{Input: 1_000_000, Output: 1_000_000}}
		if ttft > 0 {
			r.Timing.FirstText = r.Timing.RequestStarted.Add(ttft)
		}
		return r
	}
	ok, failed := callrecord.StatusCompleted, callrecord.StatusError
	get := func(q control.DashboardQuery) control.DashboardView {
		q.Since, q.Until = start, start.Add(time.Hour)
		v, err := d.Get(context.Background(), q)
		Expect(err).NotTo(HaveOccurred())
		return v
	}

	BeforeEach(func() {
		start, seq = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), 0
		settings := control.NewSettings(settingStore{})
		_, err := settings.Update(context.Background(), control.ServiceSettings{
			Prices: []control.Price{{ModelID: "fim-a", Input: 1, Output: 2}}})
		Expect(err).NotTo(HaveOccurred())
		calls = &callList{recs: []callrecord.Record{
			// ada's request r1 failed over from fim-b to fim-a, which
			// served it: one request of fim-a, two calls, 300 ms from its
			// first attempt to text.
			call(callrecord.KindTab, "ada", "r1", "fim-b", 0, 0, failed),
			call(callrecord.KindTab, "ada", "r1", "fim-a", 200*time.Millisecond, 100*time.Millisecond, ok),
			call(callrecord.KindTab, "ada", "r2", "fim-a", time.Minute, 100*time.Millisecond, ok),
			call(callrecord.KindTab, "ada", "r3", "fim-a", 2*time.Minute, 500*time.Millisecond, ok),
			call(callrecord.KindTab, "bob", "r4", "fim-b", 3*time.Minute, 0, failed),
			// An Agent turn's call, one stored before kinds, a connection
			// test and a Tab call still running.
			call(callrecord.KindAgent, "ada", "run-1", "fim-a", 4*time.Minute, time.Second, ok),
			call("", "bob", "run-2", "fim-a", 5*time.Minute, time.Second, ok),
			call(callrecord.KindTest, "", "test", "fim-a", 6*time.Minute, time.Second, ok),
			call(callrecord.KindTab, "ada", "r5", "fim-a", 7*time.Minute, 0, callrecord.StatusRunning),
		}}
		fates = &fateList{fates: []ports.SuggestionFate{
			{UserID: "ada", RequestID: "r1", Fate: tab.FateAccepted},
			{UserID: "ada", RequestID: "r2", Fate: tab.FatePartiallyAccepted},
			{UserID: "ada", RequestID: "r3", Fate: tab.FateRejected},
			// A fate of a request the calls do not hold (another model's,
			// or outside the range) counts nowhere.
			{UserID: "ada", RequestID: "elsewhere", Fate: tab.FateAccepted},
		}}
		d = control.NewDashboard(calls, settings, nil)
		d.ReadFatesWith(fates)
	})

	It("counts each Tab request once, retries as calls, under the model that served it last", func() {
		v := get(control.DashboardQuery{})
		Expect(v.Tab.Totals.Requests).To(BeEquivalentTo(4))
		Expect(v.Tab.Totals.Calls).To(BeEquivalentTo(5))
		Expect(v.Tab.Totals.Failed).To(BeEquivalentTo(1))
		Expect(v.Tab.PerModel).To(HaveLen(2))
		Expect(v.Tab.PerModel[0].ModelID).To(Equal("fim-a"))
		Expect(v.Tab.PerModel[0].Requests).To(BeEquivalentTo(3))
		Expect(v.Tab.PerModel[1].ModelID).To(Equal("fim-b"))
		Expect(v.Tab.PerModel[1].Requests).To(BeEquivalentTo(1))
		Expect(v.Tab.PerUser).To(HaveLen(2))
		Expect([]string{v.Tab.PerUser[0].UserID, v.Tab.PerUser[1].UserID}).To(Equal([]string{"ada", "bob"}))
		Expect(v.Tab.PerUser[0].Requests).To(BeEquivalentTo(3))
	})

	It("joins the fates on user and request id: acceptance is accepted and partial over the fates reported", func() {
		v := get(control.DashboardQuery{})
		ada := v.Tab.PerUser[0]
		Expect([]int64{ada.Accepted, ada.Partial, ada.Rejected}).To(Equal([]int64{1, 1, 1}))
		Expect(ada.AcceptanceRate()).To(BeNumerically("~", 2.0/3, 1e-9))
		Expect(v.Tab.PerUser[1].AcceptanceRate()).To(BeZero(), "bob reported no fate")
		Expect(v.Tab.Totals.AcceptanceRate()).To(BeNumerically("~", 2.0/3, 1e-9))
	})

	It("reports the median wait for first text, from a request's first attempt", func() {
		v := get(control.DashboardQuery{})
		// ada: r1 300 ms (failover included), r2 100 ms, r3 500 ms.
		Expect(v.Tab.PerUser[0].P50TTFT()).To(Equal(300 * time.Millisecond))
		Expect(v.Tab.PerUser[1].P50TTFT()).To(BeZero(), "bob's request produced no text")
	})

	It("prices Tab calls apart from Agent calls", func() {
		v := get(control.DashboardQuery{})
		// Three priced fim-a Tab calls, a million tokens in and out each.
		Expect(v.Tab.Totals.CostUSD).To(BeNumerically("~", 9, 1e-9))
		Expect(v.Tab.Totals.UnpricedCalls).To(BeEquivalentTo(2))
	})

	It("keeps Tab calls and connection tests out of the Agent figures", func() {
		v := get(control.DashboardQuery{})
		Expect(v.Totals.Calls).To(BeEquivalentTo(2), "the Agent call and the one stored before kinds")
		Expect(v.PerModel).To(HaveLen(1))
		Expect(v.PerModel[0].Calls).To(BeEquivalentTo(2))
		Expect(v.PerUser).To(HaveLen(2))
		var series int64
		for _, p := range v.Series {
			series += p.Calls
		}
		Expect(series).To(BeEquivalentTo(2))
	})

	It("asks for the fates of the dashboard's range and user", func() {
		get(control.DashboardQuery{UserID: "ada"})
		Expect(fates.q).To(Equal(&ports.FateQuery{Since: start, Until: start.Add(time.Hour), UserID: "ada"}))
		Expect(calls.q.UserID).To(Equal("ada"))
	})

	It("has no Tab figures, and reads no fates, when the range holds no Tab call", func() {
		calls.recs = calls.recs[5:8]
		v := get(control.DashboardQuery{})
		Expect(v.Tab).To(Equal(control.TabView{}))
		Expect(fates.q).To(BeNil())
	})
})
