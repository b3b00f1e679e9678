package teams

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

// MaxSpendRange bounds the days one spend report reads.
const MaxSpendRange = 92 * 24 * time.Hour

// ErrSpendRange refuses a report whose range is empty or over MaxSpendRange.
var ErrSpendRange = fmt.Errorf("a spend report covers a start before its end, at most %d days", int(MaxSpendRange.Hours()/24))

// Price is what a model's tokens cost, in USD per million tokens.
type Price struct{ Input, Output, CacheRead, CacheWrite float64 }

func (p Price) cost(u llm.Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Prices returns the current prices by upstream model id.
type Prices func(ctx context.Context) (map[string]Price, error)

// Spend reports spend per day, team, user and model from call records.
type Spend struct {
	teams  ports.ChargedTeams
	calls  ports.CallLister
	prices Prices
	now    func() time.Time
}

// NewSpend returns the spend report use case; teams nil (a laptop) puts
// every row in no team. calls should already be
// scoped to the caller (company.Tenancy.CallLister): Report scopes a
// member to their own calls as well. now nil uses time.Now.
func NewSpend(teams ports.ChargedTeams, calls ports.CallLister, prices Prices, now func() time.Time) *Spend {
	if now == nil {
		now = time.Now
	}
	return &Spend{teams: teams, calls: calls, prices: prices, now: now}
}

// SpendQuery selects a report; zero times default to the last 30 days. A
// member's query is scoped to their own calls whatever UserID says.
type SpendQuery struct {
	Since, Until time.Time
	// Team keeps only the users charged to it; UserID only one user.
	Team, UserID string
}

// SpendRow sums one user's finished calls on one model on one UTC day.
type SpendRow struct {
	Day                                  time.Time
	Team                                 string
	UserID                               string
	ModelID                              string
	Calls                                int64
	Input, Output, CacheRead, CacheWrite int64
	CostUSD                              float64
	// UnpricedCalls used a model without a price: their cost is not in
	// CostUSD.
	UnpricedCalls int64
}

// Report returns the rows of q ordered by day, team, user and model. Every
// kind of call counts (Agent, Tab, inline edits, commit messages, the
// compatible API) except the console's connection tests. A row's team is
// the user's charged team now (ports.ChargedTeams), not when they called.
func (s *Spend) Report(ctx context.Context, q SpendQuery) ([]SpendRow, error) {
	p, ok := access.FromContext(ctx)
	if !ok {
		return nil, fmt.Errorf("spend report: %w", access.ErrDenied)
	}
	if !p.IsAdmin() {
		q.UserID = p.Identity.UserID
	}
	if q.Until.IsZero() {
		q.Until = s.now()
	}
	if q.Since.IsZero() {
		q.Since = q.Until.Add(-30 * 24 * time.Hour)
	}
	if !q.Since.Before(q.Until) || q.Until.Sub(q.Since) > MaxSpendRange {
		return nil, ErrSpendRange
	}
	prices, err := s.prices(ctx)
	if err != nil {
		return nil, fmt.Errorf("spend report: %w", err)
	}
	recs, err := s.calls.CallRecords(ctx, ports.CallQuery{Since: q.Since, Until: q.Until, UserID: q.UserID})
	if err != nil {
		return nil, fmt.Errorf("spend report: %w", err)
	}
	type key struct {
		day           time.Time
		user, modelID string
	}
	rows := map[key]*SpendRow{}
	charged := map[string]string{}
	for _, r := range recs {
		if !r.Status.Final() || r.Kind == callrecord.KindTest {
			continue
		}
		t, seen := charged[r.UserID]
		if !seen && s.teams != nil {
			if t, err = s.teams.ChargedTeam(ctx, r.UserID); err != nil {
				return nil, fmt.Errorf("spend report: %w", err)
			}
			charged[r.UserID] = t
		}
		if q.Team != "" && t != q.Team {
			continue
		}
		st := r.Timing.RequestStarted.UTC()
		k := key{day: time.Date(st.Year(), st.Month(), st.Day(), 0, 0, 0, 0, time.UTC), user: r.UserID, modelID: r.Model.ModelID}
		row := rows[k]
		if row == nil {
			row = &SpendRow{Day: k.day, Team: t, UserID: r.UserID, ModelID: r.Model.ModelID}
			rows[k] = row
		}
		row.Calls++
		if r.Usage == nil {
			continue
		}
		u := *r.Usage
		row.Input += u.Input
		row.Output += u.Output
		row.CacheRead += u.CacheRead
		row.CacheWrite += u.CacheWrite
		if price, ok := prices[r.Model.ModelID]; ok {
			row.CostUSD += price.cost(u)
		} else {
			row.UnpricedCalls++
		}
	}
	out := make([]SpendRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Day.Equal(b.Day) {
			return a.Day.Before(b.Day)
		}
		if a.Team != b.Team {
			return a.Team < b.Team
		}
		if a.UserID != b.UserID {
			return a.UserID < b.UserID
		}
		return a.ModelID < b.ModelID
	})
	return out, nil
}

// CSVHeader is the first line of CSV.
var CSVHeader = []string{"day", "team", "user_id", "model_id", "calls", "input_tokens", "output_tokens",
	"cache_read_tokens", "cache_write_tokens", "cost_usd", "unpriced_calls"}

// CSV writes rows as CSV (RFC 4180) with CSVHeader. A cell a spreadsheet
// would read as a formula (starting with =, +, -, @, tab or carriage
// return; user ids and model ids come from outside) is prefixed with a
// single quote.
func CSV(rows []SpendRow) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(CSVHeader); err != nil {
		return nil, fmt.Errorf("write spend csv: %w", err)
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		rec := []string{r.Day.Format(time.DateOnly), cell(r.Team), cell(r.UserID), cell(r.ModelID), n(r.Calls),
			n(r.Input), n(r.Output), n(r.CacheRead), n(r.CacheWrite), strconv.FormatFloat(r.CostUSD, 'f', 6, 64), n(r.UnpricedCalls)}
		if err := w.Write(rec); err != nil {
			return nil, fmt.Errorf("write spend csv: %w", err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("write spend csv: %w", err)
	}
	return buf.Bytes(), nil
}

func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
