package teams_test

import (
	"context"
	"encoding/csv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/teams"
	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/team"
	"keygate/ports"
)

// calls is a CallLister over records in memory (Since, Until, UserID).
type calls []callrecord.Record

func (c calls) CallRecords(_ context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	var out []callrecord.Record
	for _, r := range c {
		st := r.Timing.RequestStarted
		if st.Before(q.Since) || !st.Before(q.Until) || (q.UserID != "" && r.UserID != q.UserID) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

var _ = Describe("Spend", func() {
	day := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	rec := func(user, model string, at time.Time, kind callrecord.Kind, in, out int64) callrecord.Record {
		return callrecord.Record{UserID: user, Kind: kind, Status: callrecord.StatusCompleted,
			Model:  callrecord.ModelSnapshot{ModelID: model},
			Timing: callrecord.Timing{RequestStarted: at}, Usage: &llm.Usage{Input: in, Output: out}}
	}
	var (
		spend *teams.Spend
		as    = func(u string, role access.Role) context.Context {
			return access.NewContext(context.Background(), access.Principal{Identity: identity.Identity{UserID: u}, Role: role})
		}
	)
	BeforeEach(func() {
		f := newFake()
		svc := teams.New(f, f, f)
		Expect(svc.Put(context.Background(), team.Team{Name: "ml"})).To(Succeed())
		Expect(svc.Put(context.Background(), team.Team{Name: "web"})).To(Succeed())
		f.groups["ada"] = []string{"web", "ml"}
		f.groups["bob"] = []string{"ml"}
		records := calls{
			rec("ada", "gpt", day, callrecord.KindAgent, 1_000_000, 0),
			rec("ada", "gpt", day.Add(time.Hour), callrecord.KindTab, 0, 1_000_000),
			rec("ada", "gpt", day.Add(24*time.Hour), callrecord.KindAPI, 1_000_000, 0),
			rec("ada", "gpt", day, callrecord.KindTest, 1_000_000, 0),
			rec("bob", "=cmd", day, callrecord.KindCmdK, 10, 0),
		}
		prices := func(context.Context) (map[string]teams.Price, error) {
			return map[string]teams.Price{"gpt": {Input: 2, Output: 8}}, nil
		}
		spend = teams.NewSpend(svc, records, prices, func() time.Time { return day.Add(72 * time.Hour) })
	})

	It("sums per day, team, user and model, priced, every kind but connection tests", func() {
		rows, err := spend.Report(as("root", access.Admin), teams.SpendQuery{})
		Expect(err).NotTo(HaveOccurred())
		Expect(rows).To(HaveLen(3))
		Expect(rows[0]).To(MatchFields(rows[0], "ml", "bob", "=cmd", 1))
		Expect(rows[0].UnpricedCalls).To(Equal(int64(1)))
		Expect(rows[1].Team).To(Equal("web"))
		Expect(rows[1].Calls).To(Equal(int64(2)))
		Expect(rows[1].CostUSD).To(BeNumerically("~", 10.0))
		Expect(rows[2].Day).To(Equal(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)))
	})

	It("shows a member only their own spend, whatever they ask", func() {
		rows, err := spend.Report(as("bob", access.Member), teams.SpendQuery{UserID: "ada", Team: ""})
		Expect(err).NotTo(HaveOccurred())
		Expect(rows).To(HaveLen(1))
		Expect(rows[0].UserID).To(Equal("bob"))
		rows, err = spend.Report(as("bob", access.Member), teams.SpendQuery{Team: "web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(rows).To(BeEmpty(), "another team's spend is not a member's")
	})

	It("filters by team for an administrator", func() {
		rows, err := spend.Report(as("root", access.Admin), teams.SpendQuery{Team: "web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(rows).To(HaveLen(2))
		for _, r := range rows {
			Expect(r.UserID).To(Equal("ada"))
		}
	})

	It("refuses a range over the bound and a caller without a principal", func() {
		_, err := spend.Report(as("root", access.Admin), teams.SpendQuery{Since: day.Add(-100 * 24 * time.Hour), Until: day})
		Expect(err).To(MatchError(teams.ErrSpendRange))
		_, err = spend.Report(context.Background(), teams.SpendQuery{})
		Expect(err).To(MatchError(access.ErrDenied))
	})

	It("writes CSV a spreadsheet reads as data, never as a formula", func() {
		rows, err := spend.Report(as("root", access.Admin), teams.SpendQuery{})
		Expect(err).NotTo(HaveOccurred())
		b, err := teams.CSV(rows)
		Expect(err).NotTo(HaveOccurred())
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		Expect(err).NotTo(HaveOccurred())
		Expect(recs).To(HaveLen(4))
		Expect(recs[0]).To(Equal(teams.CSVHeader))
		Expect(recs[1][:4]).To(Equal([]string{"2026-12-01", "ml", "bob", "'=cmd"}))
		Expect(recs[2][9]).To(Equal("10.000000"))
	})
})

// MatchFields checks a row's team, user, model and calls.
func MatchFields(r teams.SpendRow, t, user, model string, n int64) OmegaMatcher {
	return And(
		WithTransform(func(r teams.SpendRow) string { return r.Team }, Equal(t)),
		WithTransform(func(r teams.SpendRow) string { return r.UserID }, Equal(user)),
		WithTransform(func(r teams.SpendRow) string { return r.ModelID }, Equal(model)),
		WithTransform(func(r teams.SpendRow) int64 { return r.Calls }, Equal(n)),
	)
}
