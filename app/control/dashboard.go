package control

import (
	"context"
	"fmt"
	"sort"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

// Bucket is the width of one point of a time series.
type Bucket uint8

// Bucket sizes; BucketAuto picks one from the range.
const (
	BucketAuto Bucket = iota
	BucketMinute
	BucketHour
	BucketDay
)

// Aggregate sums finished calls.
type Aggregate struct {
	Calls, Completed, Failed, Cancelled int64
	Input, CacheRead, CacheWrite        int64
	Output                              int64
	CostUSD                             float64
	UnpricedCalls                       int64
	ttftSum                             time.Duration
	ttftCount                           int64
}

// CacheHitRate is cache read / (cache read + fresh input), 0 without input.
func (a Aggregate) CacheHitRate() float64 {
	if d := a.CacheRead + a.Input; d > 0 {
		return float64(a.CacheRead) / float64(d)
	}
	return 0
}

// MeanTTFT averages the time to first text over calls that produced text.
func (a Aggregate) MeanTTFT() time.Duration {
	if a.ttftCount == 0 {
		return 0
	}
	return a.ttftSum / time.Duration(a.ttftCount)
}

func (a *Aggregate) add(r callrecord.Record, price *Price) {
	a.Calls++
	switch r.Status {
	case callrecord.StatusCompleted:
		a.Completed++
	case callrecord.StatusError:
		a.Failed++
	case callrecord.StatusCancelled:
		a.Cancelled++
	}
	if t := r.Timing.TTFT(); t > 0 {
		a.ttftSum += t
		a.ttftCount++
	}
	if r.Usage == nil {
		return
	}
	u := *r.Usage
	a.Input += u.Input
	a.CacheRead += u.CacheRead
	a.CacheWrite += u.CacheWrite
	a.Output += u.Output
	if price == nil {
		a.UnpricedCalls++
		return
	}
	a.CostUSD += price.cost(u)
}

// cost is what u costs at p's prices per million tokens.
func (p *Price) cost(u llm.Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Point is one bucket of a time series.
type Point struct {
	Start time.Time
	Aggregate
}

// ModelAggregate sums the calls of one upstream model.
type ModelAggregate struct {
	ModelID string
	Aggregate
}

// TargetAggregate sums the routed calls of one target (a model on its
// provider): where each deployment's cache hit rate shows.
type TargetAggregate struct {
	Target   string
	Provider string
	Aggregate
}

// UserAggregate sums the calls made in one user's turns.
type UserAggregate struct {
	UserID string
	Aggregate
}

// DashboardQuery selects what to aggregate; zero times default to the last
// seven days. An empty ModelID or UserID matches every model or user.
type DashboardQuery struct {
	Since, Until time.Time
	Bucket       Bucket
	ModelID      string
	UserID       string
}

// DashboardView is the aggregate of a range. Totals, Series, PerModel,
// PerUser and PerTarget sum Agent calls only (a record without a kind is
// one); Tab sums Cursor Tab predictions apart; connection tests are in
// neither.
type DashboardView struct {
	Totals   Aggregate
	Series   []Point
	PerModel []ModelAggregate
	PerUser  []UserAggregate
	// PerTarget sums routed calls by target, ordered by target.
	PerTarget []TargetAggregate
	Bucket    Bucket
	Tab       TabView
}

// Dashboard aggregates call records.
type Dashboard struct {
	calls    ports.CallLister
	fates    ports.SuggestionFateLister
	settings *Settings
	now      func() time.Time
}

// NewDashboard returns the dashboard use case; now nil uses time.Now.
func NewDashboard(calls ports.CallLister, settings *Settings, now func() time.Time) *Dashboard {
	if now == nil {
		now = time.Now
	}
	return &Dashboard{calls: calls, settings: settings, now: now}
}

// ReadFatesWith makes the Tab figures count the fates of suggestions kept
// in f (without it every Tab request counts as one without a fate). Call
// it before the first Get.
func (d *Dashboard) ReadFatesWith(f ports.SuggestionFateLister) { d.fates = f }

// Get aggregates finished calls started in [Since, Until).
func (d *Dashboard) Get(ctx context.Context, q DashboardQuery) (DashboardView, error) {
	if q.Until.IsZero() {
		q.Until = d.now()
	}
	if q.Since.IsZero() {
		q.Since = q.Until.Add(-7 * 24 * time.Hour)
	}
	if !q.Since.Before(q.Until) {
		return DashboardView{}, invalid("start_time", "the start must be before the end")
	}
	if q.Bucket == BucketAuto {
		q.Bucket = autoBucket(q.Until.Sub(q.Since))
	}
	if q.Bucket > BucketDay {
		return DashboardView{}, invalid("bucket_size", "use minute, hour or day, or leave it unset")
	}
	// Every bucket of the range becomes a point, so the range bounds the
	// answer (Sub saturates at about 292 years, which is over the limit).
	if n := q.Until.Sub(q.Since) / width[q.Bucket]; n > MaxSeriesPoints {
		return DashboardView{}, invalid("bucket_size", fmt.Sprintf(
			"the range holds %d buckets; at most %d: choose a larger bucket or a shorter range", n, MaxSeriesPoints))
	}
	if err := checkFilterID("model_id", q.ModelID); err != nil {
		return DashboardView{}, err
	}
	if err := checkFilterID("user_id", q.UserID); err != nil {
		return DashboardView{}, err
	}
	set, err := d.settings.Load(ctx)
	if err != nil {
		return DashboardView{}, err
	}
	prices := map[string]*Price{}
	for i := range set.Prices {
		prices[set.Prices[i].ModelID] = &set.Prices[i]
	}
	recs, err := d.calls.CallRecords(ctx, ports.CallQuery{Since: q.Since, Until: q.Until, ModelID: q.ModelID, UserID: q.UserID})
	if err != nil {
		return DashboardView{}, fmt.Errorf("aggregate calls: %w", err)
	}
	v := DashboardView{Bucket: q.Bucket}
	if v.Tab, err = d.tab(ctx, q, recs, prices); err != nil {
		return DashboardView{}, err
	}
	points := map[time.Time]*Point{}
	models := map[string]*ModelAggregate{}
	users := map[string]*UserAggregate{}
	targets := map[string]*TargetAggregate{}
	for _, r := range recs {
		if !r.Status.Final() || r.Kind.Effective() != callrecord.KindAgent {
			continue
		}
		p := prices[r.Model.ModelID]
		v.Totals.add(r, p)
		start := truncate(r.Timing.RequestStarted, q.Bucket)
		if points[start] == nil {
			points[start] = &Point{Start: start}
		}
		points[start].add(r, p)
		if models[r.Model.ModelID] == nil {
			models[r.Model.ModelID] = &ModelAggregate{ModelID: r.Model.ModelID}
		}
		models[r.Model.ModelID].add(r, p)
		if users[r.UserID] == nil {
			users[r.UserID] = &UserAggregate{UserID: r.UserID}
		}
		users[r.UserID].add(r, p)
		if t := r.Route.Target; t != "" {
			if targets[t] == nil {
				targets[t] = &TargetAggregate{Target: t, Provider: r.Route.Provider}
			}
			targets[t].add(r, p)
		}
	}
	for t := truncate(q.Since, q.Bucket); t.Before(q.Until); t = step(t, q.Bucket) {
		if p := points[t]; p != nil {
			v.Series = append(v.Series, *p)
		} else {
			v.Series = append(v.Series, Point{Start: t})
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
	for _, t := range targets {
		v.PerTarget = append(v.PerTarget, *t)
	}
	sort.Slice(v.PerTarget, func(i, j int) bool { return v.PerTarget[i].Target < v.PerTarget[j].Target })
	return v, nil
}

// MaxSeriesPoints bounds the buckets of one dashboard answer: a week in
// minutes, or more than 27 years in days.
const MaxSeriesPoints = 10_080

// width is the length of each bucket size, for counting points.
var width = map[Bucket]time.Duration{BucketMinute: time.Minute, BucketHour: time.Hour, BucketDay: 24 * time.Hour}

func autoBucket(d time.Duration) Bucket {
	switch {
	case d <= time.Hour:
		return BucketMinute
	case d <= 60*time.Hour:
		return BucketHour
	default:
		return BucketDay
	}
}

// truncate puts t at the start of its bucket in UTC.
func truncate(t time.Time, b Bucket) time.Time {
	t = t.UTC()
	switch b {
	case BucketMinute:
		return t.Truncate(time.Minute)
	case BucketHour:
		return t.Truncate(time.Hour)
	default:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
}

func step(t time.Time, b Bucket) time.Time {
	switch b {
	case BucketMinute:
		return t.Add(time.Minute)
	case BucketHour:
		return t.Add(time.Hour)
	default:
		return t.AddDate(0, 0, 1)
	}
}
