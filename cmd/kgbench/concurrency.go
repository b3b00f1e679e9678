package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
)

// concSettings pace one level of scenario 2.
type concSettings struct {
	N, Tokens int
	Interval  time.Duration
}

// side is one path (direct or Keygate) at one concurrency level.
type side struct {
	Transit, Gaps dist
	Errors        int
	FirstErr      string
	TokensPerSec  float64
	// RSSPerTurn is (peak RSS while streaming − RSS before) / N, the peak
	// sampled with the heap and goroutines; HWMPerTurn the same with the
	// kernel's high-water mark (VmHWM, reset before the run) as the peak,
	// 0 when it could not be reset.
	RSSPerTurn, HWMPerTurn float64
	// Goroutines before the turns and after they ended and settled.
	GoBefore, GoAfter int
	// Steady is the transit of the middle three fifths of each turn's
	// tokens, away from the turns' starts and ends.
	Steady dist
	// CPUPerToken is the measured process's CPU time over the tokens
	// delivered.
	CPUPerToken time.Duration
	// HeapPerTurn and GoPerTurn are the peak live heap objects and
	// goroutines above the start, per turn.
	HeapPerTurn, GoPerTurn float64
	// Other is the other processes' average busy cores meanwhile (neither
	// this one nor the Keygate child); Cores the measured process's.
	Other, Cores float64
}

// The two Keygate rows of scenario 2.
const (
	pathInProcess  = "Keygate (in process)"
	pathOwnProcess = "Keygate (own process)"
)

type concRow struct {
	concSettings
	// Keygate is measured on this whole process (stack, fake provider and
	// clients); Own on the Keygate child alone, driven the same way.
	Direct, Relay, Keygate, Own side
}

// concurrencyResult is scenario 2: one row per level.
type concurrencyResult struct{ Rows []concRow }

// runConcurrency runs the levels, Keygate both in this process and in a
// child of its own. The paces keep the whole process (fake provider,
// Keygate and the simulated clients) under the 2 cores' capacity, at a few
// hundred µs of CPU per delivered token, so the figures show latency, not
// a backlog: 100 turns × 25 tokens/s and 1,000 turns × 2.5 tokens/s.
func runConcurrency(ctx context.Context, r *rig) (*concurrencyResult, error) {
	levels := []concSettings{{N: 1, Tokens: 200, Interval: 5 * time.Millisecond}, {N: 100, Tokens: 80, Interval: 40 * time.Millisecond},
		{N: targetManyTurns, Tokens: 30, Interval: 400 * time.Millisecond}}
	if r.quick {
		levels[2].N = 200
	}
	own, err := startOwnProcess(r.prov.srv.URL)
	if err != nil {
		return nil, err
	}
	defer own.close()
	out := &concurrencyResult{}
	for _, l := range levels {
		step(fmt.Sprintf("concurrency %d", l.N))
		row, err := measureConcurrency(ctx, r.stack, own, r.prov, r.relay, r.clk, l)
		if err != nil {
			return nil, fmt.Errorf("%d turns: %w", l.N, err)
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// concPath is one path's line of a level in the report.
type concPath struct {
	Name string
	S    side
	// Added is the path's transit p99 − direct's, Beyond its p99 − the
	// relay's; Has* say whether the path has them.
	Added, Beyond       time.Duration
	HasAdded, HasBeyond bool
	// Own marks Keygate's own process, the row the memory target reads.
	Own bool
}

// Paths are the level's four lines: direct, relay, in process, own.
func (c concRow) Paths() []concPath {
	out := []concPath{{Name: "direct", S: c.Direct}, {Name: "relay", S: c.Relay, HasAdded: true},
		{Name: pathInProcess, S: c.Keygate, HasAdded: true, HasBeyond: true}, {Name: pathOwnProcess, S: c.Own, HasAdded: true, HasBeyond: true, Own: true}}
	for i := range out {
		out[i].Added = out[i].S.Transit.P99() - c.Direct.Transit.P99()
		out[i].Beyond = out[i].S.Transit.P99() - c.Relay.Transit.P99()
	}
	return out
}

// Target thresholds from the issue.
const (
	targetAddedP99     = 50 * time.Microsecond
	targetConcurrentAt = 100
	targetRSSPerTurn   = 256 * 1024
	targetManyTurns    = 1000
)

// tailJudgement is the per-token p99 target at targetConcurrentAt turns.
type tailJudgement struct {
	Limit time.Duration
	At    int
	Row   concRow
}

// Added is Keygate's transit p99 − direct's.
func (j tailJudgement) Added() time.Duration {
	return j.Row.Keygate.Transit.P99() - j.Row.Direct.Transit.P99()
}

// memoryJudgement is the memory target at targetManyTurns turns.
type memoryJudgement struct {
	Limit float64
	At    int
	Row   concRow
	// Own is the resident memory per turn of Keygate's own process, How
	// how it was read.
	Own    float64
	How    string
	Errors int
}

// Under is how far the own process's memory per turn is below the limit
// (negative: over it); OwnX and WholeX are the own process's and the whole
// process's memory per turn over the limit.
func (j memoryJudgement) Under() float64  { return j.Limit - j.Own }
func (j memoryJudgement) OwnX() float64   { return j.Own / j.Limit }
func (j memoryJudgement) WholeX() float64 { return j.Row.Keygate.RSSPerTurn / j.Limit }

func judgeConcurrency(res, _ *concurrencyResult) []target {
	tail := target{Row: "concurrency tail", Why: "concurrency tail"}
	tj := tailJudgement{Limit: targetAddedP99, At: targetConcurrentAt}
	mem := target{Row: "concurrency memory", Why: "concurrency memory"}
	mj := memoryJudgement{Limit: targetRSSPerTurn, At: targetManyTurns}
	var rows []concRow
	if res != nil {
		rows = res.Rows
	}
	for _, c := range rows {
		switch c.N {
		case targetConcurrentAt:
			tj.Row, tail.Judged = c, true
			tail.Met = tj.Added() <= tj.Limit
		case targetManyTurns:
			// Keygate's own process is what the target is about; the
			// high-water mark is its true peak, the sampled one the fallback.
			mj.Row, mj.Own, mj.How = c, c.Own.HWMPerTurn, "high-water mark"
			if mj.Own == 0 {
				mj.Own, mj.How = c.Own.RSSPerTurn, "peak sampled every 20 ms"
			}
			mj.Errors = c.Own.Errors + c.Keygate.Errors
			mem.Judged, mem.Met = true, mj.Errors == 0 && mj.Own <= mj.Limit
		}
	}
	tail.Data, mem.Data = tj, mj
	return []target{tail, mem}
}

// measureConcurrency runs N turns at once, first directly against the fake
// provider, then through the relay, through Keygate in this process and
// through the same Keygate stack in a process of its own (OpenAI Chat
// protocol, SQLite store). The provider holds every reply's tokens until
// all N requests arrived, so the N turns really stream at the same time.
func measureConcurrency(ctx context.Context, s *stack, own *ownProcess, prov *paced, rel *relay, clk *clock, set concSettings) (concRow, error) {
	row := concRow{concSettings: set}
	k := kinds[0]
	url, err := provider.RequestURL(prov.srv.URL, false, k.kind)
	if err != nil {
		return row, err
	}
	relayURL, err := provider.RequestURL(rel.srv.URL, false, k.kind)
	if err != nil {
		return row, err
	}
	direct := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	row.Direct = runConcurrent(self{}, prov, set, clk, func() { direct.CloseIdleConnections() }, func(ctx context.Context, id string, n int) turnResult {
		return directTurn(ctx, direct, url, id, n, clk, prov)
	}, ctx, "d")
	row.Relay = runConcurrent(self{}, prov, set, clk, func() { direct.CloseIdleConnections(); rel.client.CloseIdleConnections() }, func(ctx context.Context, id string, n int) turnResult {
		return directTurn(ctx, direct, relayURL, id, n, clk, prov)
	}, ctx, "r")
	row.Keygate = runConcurrent(self{}, prov, set, clk, s.closeIdle, func(ctx context.Context, id string, n int) turnResult {
		base, hc := s.baseURL(false)
		return keygateTurn(ctx, cursortest.NewClient(base, hc, "req-"+id), newTurn(id, k.model), id, n, clk, prov)
	}, ctx, "k")
	row.Own = runConcurrent(own, prov, set, clk, own.client.CloseIdleConnections, func(ctx context.Context, id string, n int) turnResult {
		return keygateTurn(ctx, cursortest.NewClient(own.url, own.client, "req-"+id), newTurn(id, k.model), id, n, clk, prov)
	}, ctx, "o")
	return row, nil
}

// turnTokens spreads the turns' lengths evenly between three quarters of
// the pace's token count and all of it, so that turns end over the last
// quarter of the run as independent users' turns would, instead of all in
// one pacing interval.
func turnTokens(set concSettings, i int) int {
	return set.Tokens - (i*set.Tokens/4)/max(set.N, 1)
}

// runConcurrent runs one path at one level; m is the process whose memory,
// goroutines and CPU are measured.
func runConcurrent(m meter, prov *paced, set concSettings, clk *clock, closeIdle func(), turn func(context.Context, string, int) turnResult, ctx context.Context, tag string) side {
	var out side
	m.settle()
	hwm := resetPeak(m.pid())
	before := statusKiB(readStatus(m.pid()), "VmRSS")
	heap0, gor0, cpu0 := m.runtime()
	out.GoBefore = int(gor0)
	prov.set(pace{Tokens: set.Tokens, Interval: set.Interval, Barrier: set.N, BarrierWait: 2 * time.Minute})

	load := startLoad()
	var peak, peakHeap, peakGo atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if r := statusKiB(readStatus(m.pid()), "VmRSS"); r > peak.Load() {
				peak.Store(r)
			}
			h, g, _ := m.runtime()
			if h > peakHeap.Load() {
				peakHeap.Store(h)
			}
			if g > peakGo.Load() {
				peakGo.Store(g)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	results := make([]turnResult, set.N)
	var wg sync.WaitGroup
	if heapProfile != "" && (tag == "k" || tag == "o") {
		wg.Go(func() { writeHeapProfile(ctx, m, prov, set) })
	}
	for i := range set.N {
		n := turnTokens(set, i)
		wg.Go(func() { results[i] = turn(ctx, fmt.Sprintf("kgb-c%d-%s-%d-n%d", set.N, tag, i, n), n) })
	}
	wg.Wait()
	close(stop)
	<-sampled
	_, _, cpu1 := m.runtime()
	cpu := cpu1 - cpu0
	out.Cores = cpu.Seconds() / time.Since(load.at0).Seconds()
	out.Other = load.cores()
	if _, child := m.(*ownProcess); child {
		out.Other = max(0, out.Other-out.Cores)
	}
	out.RSSPerTurn = float64(peak.Load()-before) / float64(set.N)
	if hwm {
		out.HWMPerTurn = float64(statusKiB(readStatus(m.pid()), "VmHWM")-before) / float64(set.N)
	}
	out.HeapPerTurn = float64(peakHeap.Load()-heap0) / float64(set.N)
	out.GoPerTurn = float64(peakGo.Load()-int64(out.GoBefore)) / float64(set.N)

	var transit, gaps, steady []time.Duration
	first, last := time.Duration(1<<62), time.Duration(0)
	tokens := 0
	for _, r := range results {
		if r.err != nil {
			if out.Errors == 0 {
				out.FirstErr = r.err.Error()
			}
			out.Errors++
			continue
		}
		l := r.latencies()
		transit = append(transit, l...)
		steady = append(steady, l[len(l)/5:len(l)-len(l)/5]...)
		gaps = append(gaps, r.gaps()...)
		tokens += len(r.recv)
		first, last = min(first, r.recv[0]), max(last, r.recv[len(r.recv)-1])
	}
	out.Transit, out.Gaps, out.Steady = newDist(transit), newDist(gaps), newDist(steady)
	if last > first {
		out.TokensPerSec = float64(tokens) / (last - first).Seconds()
	}
	if tokens > 0 {
		out.CPUPerToken = cpu / time.Duration(tokens)
	}
	// Let lingering streams end, drop the clients' idle connections, then
	// give the goroutines a moment to finish.
	closeIdle()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, g, _ := m.runtime()
		out.GoAfter = int(g)
		if out.GoAfter <= out.GoBefore || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
		closeIdle()
	}
	return out
}

// heapAndGoroutines reads the live heap object bytes and the goroutine
// count from runtime/metrics (no stop-the-world).
func heapAndGoroutines() (int64, int64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// heapProfile, when set (-memprofile), receives heap profiles taken while
// the Keygate turns of each concurrency level stream: FILE.N of this
// process, FILE.N.own of the Keygate child.
var heapProfile string

// writeHeapProfile waits until every turn's request reached the provider
// and a few tokens went out, then writes m's heap profile.
func writeHeapProfile(ctx context.Context, m meter, prov *paced, set concSettings) {
	for prov.arrivedCount() < set.N {
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	time.Sleep(3 * set.Interval)
	name := fmt.Sprintf("%s.%d", heapProfile, set.N)
	if _, child := m.(*ownProcess); child {
		name += ".own"
	}
	f, err := os.Create(name)
	if err != nil {
		return
	}
	defer f.Close()
	_ = m.heapProfile(f)
}
