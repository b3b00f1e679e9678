package control

import (
	"context"
	"fmt"
	"sort"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/tab"
	"keygate/ports"
)

// TabAggregate sums Cursor Tab requests. A request is one prediction the
// editor asked for (its call records share the request id as RunID and
// its user); its retries and failovers are Calls, not more Requests.
type TabAggregate struct {
	// Requests counts predictions; Failed those whose last attempt ended
	// in an error.
	Requests, Failed int64
	// Calls counts provider attempts, retries included.
	Calls int64
	// Accepted, Partial and Rejected count the requests whose suggestion
	// the user reported so; a request without a reported fate is in none.
	Accepted, Partial, Rejected int64
	Input, Output               int64
	CostUSD                     float64
	UnpricedCalls               int64
	// latencies are the requests' times to first text, for P50TTFT.
	latencies []time.Duration
}

// AcceptanceRate is (accepted + partially accepted) over the fates
// reported, 0 without any.
func (a TabAggregate) AcceptanceRate() float64 {
	if n := a.Accepted + a.Partial + a.Rejected; n > 0 {
		return float64(a.Accepted+a.Partial) / float64(n)
	}
	return 0
}

// P50TTFT is the median time to first text over requests that produced
// text (the lower middle of an even count), measured from the start of a
// request's first attempt to the first text of any attempt: the wait the
// editor saw, failovers included.
func (a TabAggregate) P50TTFT() time.Duration {
	if len(a.latencies) == 0 {
		return 0
	}
	l := append([]time.Duration(nil), a.latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[(len(l)-1)/2]
}

// TabModelAggregate sums the Tab requests served by one upstream model.
type TabModelAggregate struct {
	ModelID string
	TabAggregate
}

// TabUserAggregate sums one user's Tab requests.
type TabUserAggregate struct {
	UserID string
	TabAggregate
}

// TabView is the Tab section of the dashboard; empty (Totals.Requests 0)
// when the range holds no finished Tab call.
type TabView struct {
	Totals TabAggregate
	// PerModel and PerUser are ordered by model and user id.
	PerModel []TabModelAggregate
	PerUser  []TabUserAggregate
}

// tabRequest is one Tab request assembled from its attempts.
type tabRequest struct {
	user, model string
	// last is the start of the latest attempt, whose model and outcome
	// the request takes.
	last     time.Time
	failed   bool
	first    time.Time
	text     time.Time
	attempts []callrecord.Record
}

type fateKey struct{ user, request string }

// tab aggregates the finished Tab calls of recs with the fates of their
// requests.
func (d *Dashboard) tab(ctx context.Context, q DashboardQuery, recs []callrecord.Record, prices map[string]*Price) (TabView, error) {
	requests := map[fateKey]*tabRequest{}
	for _, r := range recs {
		if !r.Status.Final() || r.Kind != callrecord.KindTab {
			continue
		}
		k := fateKey{r.UserID, r.RunID}
		if r.RunID == "" {
			k.request = "call:" + r.CallID
		}
		req := requests[k]
		if req == nil {
			req = &tabRequest{user: r.UserID}
			requests[k] = req
		}
		req.attempts = append(req.attempts, r)
		start := r.Timing.RequestStarted
		if req.first.IsZero() || start.Before(req.first) {
			req.first = start
		}
		if !start.Before(req.last) {
			req.last, req.model, req.failed = start, r.Model.ModelID, r.Status == callrecord.StatusError
		}
		if t := r.Timing.FirstText; !t.IsZero() && (req.text.IsZero() || t.Before(req.text)) {
			req.text = t
		}
	}
	if len(requests) == 0 {
		return TabView{}, nil
	}
	fates := map[fateKey]tab.Fate{}
	if d.fates != nil {
		list, err := d.fates.SuggestionFates(ctx, ports.FateQuery{Since: q.Since, Until: q.Until, UserID: q.UserID})
		if err != nil {
			return TabView{}, fmt.Errorf("aggregate tab fates: %w", err)
		}
		for _, f := range list {
			fates[fateKey{f.UserID, f.RequestID}] = f.Fate
		}
	}
	var v TabView
	models := map[string]*TabModelAggregate{}
	users := map[string]*TabUserAggregate{}
	for k, req := range requests {
		if models[req.model] == nil {
			models[req.model] = &TabModelAggregate{ModelID: req.model}
		}
		if users[req.user] == nil {
			users[req.user] = &TabUserAggregate{UserID: req.user}
		}
		for _, a := range []*TabAggregate{&v.Totals, &models[req.model].TabAggregate, &users[req.user].TabAggregate} {
			a.add(req, fates[k], prices)
		}
	}
	for _, m := range models {
		v.PerModel = append(v.PerModel, *m)
	}
	sort.Slice(v.PerModel, func(i, j int) bool { return v.PerModel[i].ModelID < v.PerModel[j].ModelID })
	for _, u := range users {
		v.PerUser = append(v.PerUser, *u)
	}
	sort.Slice(v.PerUser, func(i, j int) bool { return v.PerUser[i].UserID < v.PerUser[j].UserID })
	return v, nil
}

func (a *TabAggregate) add(req *tabRequest, f tab.Fate, prices map[string]*Price) {
	a.Requests++
	if req.failed {
		a.Failed++
	}
	switch f {
	case tab.FateAccepted:
		a.Accepted++
	case tab.FatePartiallyAccepted:
		a.Partial++
	case tab.FateRejected:
		a.Rejected++
	}
	if !req.text.IsZero() {
		a.latencies = append(a.latencies, req.text.Sub(req.first))
	}
	for _, r := range req.attempts {
		a.Calls++
		if r.Usage == nil {
			continue
		}
		a.Input += r.Usage.Input
		a.Output += r.Usage.Output
		p := prices[r.Model.ModelID]
		if p == nil {
			a.UnpricedCalls++
			continue
		}
		a.CostUSD += p.cost(*r.Usage)
	}
}
