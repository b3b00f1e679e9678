package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// turnStartSettings size scenario 6: turns that start together, through
// the proxy, on Keygate as `keygate serve` runs it.
type turnStartSettings struct {
	// Levels are how many turns start together; Rounds how often each
	// level runs (few turns need more rounds for a distribution).
	Levels, Rounds []int
	// Tokens per reply, paced Interval apart after FirstDelay.
	Tokens     int
	Interval   time.Duration
	FirstDelay time.Duration
	// History is how many earlier conversations the store holds.
	History int
	// Flood turns stream Tokens each as fast as the provider sends.
	Flood int
}

// turnStartLevel is one level of scenario 6, next to its direct baseline.
type turnStartLevel struct {
	N, Turns, Errors, DirectErrors int
	FirstErr                       string
	// ToProvider is the client's request to the provider receiving the
	// model request; TTFT to the first token at the client.
	ToProvider, TTFT, DirectTTFT dist
	// Transit is per-token transit (provider write to client read).
	Transit, DirectTransit dist
	// Phases break ToProvider down (see phaseNames), from the spans.
	Phases [len(phaseNames)]dist
	// Traced is how many turns' spans were complete.
	Traced int
	// CPU is Keygate's CPU time over the level's turns, per turn.
	CPU time.Duration
}

func (l turnStartLevel) AddedTTFT(q float64) time.Duration { return l.TTFT.Q(q) - l.DirectTTFT.Q(q) }

// AllErrors are the level's failed turns, Keygate's and the baseline's.
func (l turnStartLevel) AllErrors() int { return l.Errors + l.DirectErrors }

func (l turnStartLevel) AddedToken(q float64) time.Duration {
	return l.Transit.Q(q) - l.DirectTransit.Q(q)
}

// phaseNames are the parts of the time from the client's run request to
// the provider receiving the model request, in order.
var phaseNames = [...]string{
	"proxy, transport and decode",
	"conversation open and history",
	"store writes",
	"compile and the rest of the run layer",
	"routing",
	"provider call",
}

// turnStartFlood is the flooding run: throughput, CPU and memory.
type turnStartFlood struct {
	N, Tokens, Errors, DirectErrors  int
	TokensPerSec, DirectTokensPerSec float64
	// CPUPer1k is Keygate's CPU time per 1,000 tokens delivered.
	CPUPer1k time.Duration
	// PeakRSS is Keygate's resident high-water mark during the run,
	// RSSBefore its resident memory before it; HWMReset false when the
	// kernel refused to reset the mark (then it is the process's peak).
	PeakRSS, RSSBefore int64
	HWMReset           bool
	// RSSUnsettled is the RSS before the heap was settled: free heap the
	// earlier levels left, which the runtime returns to the system slowly.
	RSSUnsettled int64
}

type turnStartReport struct {
	Settings   turnStartSettings
	Levels     []turnStartLevel
	Flood      turnStartFlood
	SeedErrors int
	SeedTook   time.Duration
	// SeedCPU is Keygate's CPU time per earlier conversation written: a
	// whole short turn (start, 10 tokens, end), 64 at a time.
	SeedCPU      time.Duration
	RequestBytes int
	// IdleRSS is Keygate's resident memory once started, before any turn;
	// PeakBeforeFlood its high-water mark from its start to the flood.
	IdleRSS, PeakBeforeFlood int64
	Other                    float64
}

func runTurnStart(ctx context.Context, r *rig) (*turnStartReport, error) {
	set := turnStartSettings{Levels: []int{1, 16, targetTogether}, Rounds: []int{4, 2, 1}, Tokens: 2000, Interval: 5 * time.Millisecond,
		FirstDelay: 300 * time.Millisecond, History: 1000, Flood: targetTogether}
	if r.quick {
		set.Rounds, set.Tokens, set.History = []int{2, 1, 1}, 400, 100
	}
	ts, err := measureTurnStart(ctx, r.prov, r.clk, set)
	return &ts, err
}

// Level is the level where n turns start together, nil when none did.
func (ts *turnStartReport) Level(n int) *turnStartLevel {
	if ts == nil {
		return nil
	}
	return find(ts.Levels, func(l turnStartLevel) bool { return l.N == n })
}

// Largest is the index in phaseNames of the part of request → provider
// that weighs most at p50.
func (l turnStartLevel) Largest() int {
	best := 0
	for i := range phaseNames {
		if l.Phases[i].P50() > l.Phases[best].P50() {
			best = i
		}
	}
	return best
}

// Issue 20's goals.
const (
	targetTogether         = 64
	goalTTFTOne            = 2 * time.Millisecond
	goalTTFTManyP50        = 10 * time.Millisecond
	goalTTFTManyP99        = 30 * time.Millisecond
	goalTokenP99Many       = time.Millisecond
	goalTokenOneX          = 3.0
	goalPeakRSS      int64 = 80 << 20
)

// turnStartJudgement is what the targets of section 6 read: the goals,
// this run's result and a previous run's (-baseline), each nil when
// absent, with the levels of one turn and of many.
type turnStartJudgement struct {
	TTFTOne, TTFTManyP50, TTFTManyP99, TokenP99Many time.Duration
	TokenOneX                                       float64
	PeakRSS                                         int64
	Many                                            int
	TS, Base                                        *turnStartReport
	One, Together                                   *turnStartLevel
}

// OkMany and OkOne judge the per-token target's two halves.
func (j turnStartJudgement) OkMany() bool { return j.Together.AddedToken(0.99) <= j.TokenP99Many }
func (j turnStartJudgement) OkOne() bool {
	return float64(j.One.AddedToken(0.5)) <= j.TokenOneX*float64(j.One.DirectTransit.P50())
}

// FloodPerTurn is the flood's resident memory per turn above the settled
// heap before it.
func (j turnStartJudgement) FloodPerTurn() float64 {
	return float64(j.TS.Flood.PeakRSS-j.TS.Flood.RSSBefore) / float64(max(j.TS.Flood.N, 1))
}

// judgeTurnStart judges issue 20's goals on section 6; no regression is
// judged only against a previous run.
func judgeTurnStart(ts, base *turnStartReport) []target {
	j := turnStartJudgement{TTFTOne: goalTTFTOne, TTFTManyP50: goalTTFTManyP50, TTFTManyP99: goalTTFTManyP99, TokenP99Many: goalTokenP99Many,
		TokenOneX: goalTokenOneX, PeakRSS: goalPeakRSS, Many: targetTogether, TS: ts, One: ts.Level(1), Together: ts.Level(targetTogether)}
	if ts != nil && base != nil && base.Flood.N > 0 {
		j.Base = base
	}
	one := target{Row: "turnstart one", Data: j, Judged: j.One != nil}
	one.Met = one.Judged && j.One.AddedTTFT(0.5) <= j.TTFTOne
	many := target{Row: "turnstart many", Data: j, Judged: j.Together != nil}
	many.Met = many.Judged && j.Together.AddedTTFT(0.5) <= j.TTFTManyP50 && j.Together.AddedTTFT(0.99) <= j.TTFTManyP99
	token := target{Row: "turnstart token", Data: j, Judged: j.One != nil && j.Together != nil}
	token.Met = token.Judged && j.OkMany() && j.OkOne()
	flooded := ts != nil && ts.Flood.N > 0
	rss := target{Row: "turnstart rss", Data: j, Judged: flooded}
	rss.Met = flooded && ts.Flood.PeakRSS <= j.PeakRSS
	regress := target{Row: "turnstart regression", Data: j, Judged: flooded && j.Base != nil}
	if flooded && j.Base == nil {
		regress.Unjudged = "no baseline"
	}
	regress.Met = regress.Judged && ts.Flood.TokensPerSec >= j.Base.Flood.TokensPerSec && ts.Flood.CPUPer1k <= j.Base.Flood.CPUPer1k && ts.Flood.Errors == 0
	return []target{one, many, token, rss, regress}
}

// measureTurnStart runs scenario 6 against Keygate in its own process.
func measureTurnStart(ctx context.Context, prov *paced, clk *clock, set turnStartSettings) (turnStartReport, error) {
	out := turnStartReport{Settings: set}
	col, err := startCollector()
	if err != nil {
		return out, err
	}
	defer col.close()
	kg, err := startApp(col.url)
	if err != nil {
		return out, err
	}
	defer kg.close()
	out.IdleRSS = statusKiB(readStatus(kg.pid()), "VmRSS")
	model, err := kg.createModel(prov.srv.URL + "/v1")
	if err != nil {
		return out, err
	}
	rc := workspaceContext()
	out.RequestBytes = len(mustMarshal(workspaceTurn("kgb-size", model, rc)))
	directURL, err := provider.RequestURL(prov.srv.URL+"/v1", false, llm.ProviderOpenAIChat)
	if err != nil {
		return out, err
	}
	direct := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	defer direct.CloseIdleConnections()

	// The store's history: earlier conversations of the same workspace.
	step(fmt.Sprintf("turn start: %d earlier conversations", set.History))
	prov.set(pace{Tokens: 10})
	t0, cpu0 := time.Now(), kg.cpu()
	var next atomic.Int64
	var seedErrs atomic.Int64
	var wg sync.WaitGroup
	// Many at a time: a turn's stream lingers 2 s after its end.
	for range 64 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(set.History); i = next.Add(1) - 1 {
				id := fmt.Sprintf("kgb-h%d", i)
				if r := keygateTurn(ctx, cursortest.NewClient(cursorAPI, kg.cursor, "req-"+id), workspaceTurn(id, model, rc), id, 10, clk, prov); r.err != nil {
					seedErrs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	out.SeedErrors, out.SeedTook = int(seedErrs.Load()), time.Since(t0)
	if set.History > 0 {
		out.SeedCPU = (kg.cpu() - cpu0) / time.Duration(set.History)
	}
	// As many users' clients as turns start together have their
	// connections to the proxy open already, as a working client does.
	together(set.Flood, func(i int) turnResult {
		id := fmt.Sprintf("kgb-warm%d", i)
		return keygateTurn(ctx, cursortest.NewClient(cursorAPI, kg.cursor, "req-"+id), workspaceTurn(id, model, rc), id, 10, clk, prov)
	})
	col.take()

	load := startLoad()
	pid := kg.pid()
	for li, n := range set.Levels {
		lv := turnStartLevel{N: n}
		for round := range set.Rounds[li] {
			step(fmt.Sprintf("turn start: %d together, round %d", n, round+1))
			p := pace{Tokens: set.Tokens, Interval: set.Interval, FirstDelay: set.FirstDelay}
			prov.set(p)
			dres := together(n, func(i int) turnResult {
				id := fmt.Sprintf("kgb-ts%d-%d-d-%d", n, round, i)
				return directTurn(ctx, direct, directURL, id, set.Tokens, clk, prov)
			})
			prov.set(p)
			cpu0 := kg.cpu()
			ids := map[string]bool{}
			kres := together(n, func(i int) turnResult {
				id := fmt.Sprintf("kgb-ts%d-%d-k-%d", n, round, i)
				return keygateTurn(ctx, cursortest.NewClient(cursorAPI, kg.cursor, "req-"+id), workspaceTurn(id, model, rc), id, set.Tokens, clk, prov)
			})
			lv.CPU += kg.cpu() - cpu0
			for _, r := range kres {
				ids["req-"+r.id] = true
			}
			spans := col.turnSpans(ids, 10*time.Second)
			lv.add(dres, kres, spans, clk)
		}
		lv.finish()
		out.Levels = append(out.Levels, lv)
	}
	out.Other = load.cores()

	// Flooding: every reply as fast as the provider writes.
	step(fmt.Sprintf("turn start: %d flooding", set.Flood))
	fl := turnStartFlood{N: set.Flood, Tokens: set.Tokens}
	p := pace{Tokens: set.Tokens, FirstDelay: set.FirstDelay}
	prov.set(p)
	dres := together(set.Flood, func(i int) turnResult {
		return directTurn(ctx, direct, directURL, fmt.Sprintf("kgb-fl-d-%d", i), set.Tokens, clk, prov)
	})
	fl.DirectTokensPerSec, fl.DirectErrors = throughput(dres)
	out.PeakBeforeFlood = statusKiB(readStatus(pid), "VmHWM")
	fl.RSSUnsettled = statusKiB(readStatus(pid), "VmRSS")
	kg.settle()
	fl.RSSBefore = statusKiB(readStatus(pid), "VmRSS")
	fl.HWMReset = resetPeak(pid)
	prov.set(p)
	cpu0 = kg.cpu()
	kres := together(set.Flood, func(i int) turnResult {
		id := fmt.Sprintf("kgb-fl-k-%d", i)
		return keygateTurn(ctx, cursortest.NewClient(cursorAPI, kg.cursor, "req-"+id), workspaceTurn(id, model, rc), id, set.Tokens, clk, prov)
	})
	cpu := kg.cpu() - cpu0
	fl.PeakRSS = statusKiB(readStatus(pid), "VmHWM")
	fl.TokensPerSec, fl.Errors = throughput(kres)
	if delivered := (set.Flood - fl.Errors) * set.Tokens; delivered > 0 {
		fl.CPUPer1k = cpu * 1000 / time.Duration(delivered)
	}
	out.Flood = fl
	col.take()
	return out, nil
}

// cursorAPI is the host Cursor calls, which the proxy intercepts.
const cursorAPI = "https://api2.cursor.sh"

// together runs n turns that start at the same moment.
func together(n int, turn func(i int) turnResult) []turnResult {
	out := make([]turnResult, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = turn(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// throughput is the tokens delivered per second from the first token to
// the last, over every turn, and the failed turns.
func throughput(rs []turnResult) (float64, int) {
	first, last := time.Duration(1<<62), time.Duration(0)
	tokens, errs := 0, 0
	for _, r := range rs {
		if r.err != nil || len(r.recv) == 0 {
			errs++
			continue
		}
		tokens += len(r.recv)
		first, last = min(first, r.recv[0]), max(last, r.recv[len(r.recv)-1])
	}
	if last <= first {
		return 0, errs
	}
	return float64(tokens) / (last - first).Seconds(), errs
}

// add takes one round's results: the direct baseline's and Keygate's,
// with the spans Keygate exported for its turns.
func (l *turnStartLevel) add(direct, kg []turnResult, spans map[string][]span, clk *clock) {
	for _, r := range direct {
		if r.err != nil {
			l.DirectErrors++
			continue
		}
		if t, ok := r.ttft(); ok {
			l.DirectTTFT = append(l.DirectTTFT, t)
		}
		l.DirectTransit = append(l.DirectTransit, r.latencies()...)
	}
	byRequest := map[string][]span{}
	for _, ss := range spans {
		for _, s := range ss {
			if s.name == "keygate.turn" {
				byRequest[s.requestID] = ss
			}
		}
	}
	for _, r := range kg {
		l.Turns++
		if r.err != nil {
			if l.Errors == 0 {
				l.FirstErr = r.err.Error()
			}
			l.Errors++
			continue
		}
		if t, ok := r.ttft(); ok {
			l.TTFT = append(l.TTFT, t)
			l.ToProvider = append(l.ToProvider, r.reached-r.start)
		}
		l.Transit = append(l.Transit, r.latencies()...)
		if ph, ok := phases(r, byRequest["req-"+r.id], clk); ok {
			l.Traced++
			for i, d := range ph {
				l.Phases[i] = append(l.Phases[i], d)
			}
		}
	}
}

func (l *turnStartLevel) finish() {
	l.ToProvider, l.TTFT, l.DirectTTFT = newDist(l.ToProvider), newDist(l.TTFT), newDist(l.DirectTTFT)
	l.Transit, l.DirectTransit = newDist(l.Transit), newDist(l.DirectTransit)
	for i := range l.Phases {
		l.Phases[i] = newDist(l.Phases[i])
	}
	if l.Turns > 0 {
		l.CPU /= time.Duration(l.Turns)
	}
}

// phases splits one turn's time from its run request to the provider
// receiving the model request along its spans (the child's wall clock is
// this process's: same machine).
func phases(r turnResult, ss []span, clk *clock) ([len(phaseNames)]time.Duration, bool) {
	var out [len(phaseNames)]time.Duration
	var turn, route, call *span
	for i := range ss {
		s := &ss[i]
		switch {
		case s.name == "keygate.turn":
			turn = s
		case s.name == "keygate.route" && (route == nil || s.start.Before(route.start)):
			route = s
		case s.name == "keygate.model_call" && (call == nil || s.start.Before(call.start)):
			call = s
		}
	}
	if turn == nil || route == nil || call == nil {
		return out, false
	}
	at := func(t time.Time) time.Duration { return t.Sub(clk.base) }
	var history, writes time.Duration
	for _, s := range ss {
		if !s.start.Before(route.start) {
			continue
		}
		switch s.name {
		case "keygate.store.conversation.open", "keygate.store.conversation.head", "keygate.store.conversation.load":
			history += s.end.Sub(s.start)
		case "keygate.store.conversation.apply", "keygate.store.run.claim", "keygate.store.run.claim_turn", "keygate.store.run.begin_provider_call":
			writes += s.end.Sub(s.start)
		}
	}
	out[0] = at(turn.start) - r.start
	out[1] = history
	out[2] = writes
	out[3] = route.start.Sub(turn.start) - history - writes
	out[4] = call.start.Sub(route.start)
	out[5] = r.reached - at(call.start)
	return out, true
}

func mustMarshal(m *agentv1.AgentClientMessage) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kgbench: marshal:", err)
	}
	return b
}
