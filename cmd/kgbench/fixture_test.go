package main

import (
	"time"
)

// The fixture is a result set of every scenario with made-up figures, some
// targets met and some missed, and an error or two, so that every part of
// the report's templates runs.

func durs(ms ...float64) dist {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return newDist(out)
}

func fixtureLatency() []latencyRow {
	var rows []latencyRow
	for i, k := range kinds {
		for j, p := range []string{pathPlain, pathProxy} {
			f := float64(1 + i + 2*j)
			rows = append(rows, latencyRow{Kind: k.name, Path: p,
				Direct: durs(0.02, 0.03, 0.05), Relay: durs(0.04, 0.05, 0.09), Keygate: durs(0.1*f, 0.12*f, 0.3*f),
				DirectT: durs(0.1, 0.11, 0.2), RelayT: durs(0.2, 0.21, 0.3), KeygateT: durs(2*f, 2.1*f, 2.5*f),
				DirectR: durs(0.05, 0.06, 0.07), KeygateR: durs(1.5*f, 1.6*f, 1.9*f), KV: durs(0.3, 0.4, 0.5),
				Errors: i, DirectErrors: j})
		}
	}
	return rows
}

func fixtureSide(transit float64, errs int, firstErr string) side {
	return side{Transit: durs(transit, 2*transit, 5*transit), Gaps: durs(5, 5.1, 6), Errors: errs, FirstErr: firstErr,
		TokensPerSec: 2500 * transit, RSSPerTurn: 200000 * transit, HWMPerTurn: 210000 * transit, GoBefore: 10, GoAfter: 12,
		Steady: durs(transit, 1.5*transit, 2*transit), CPUPerToken: time.Duration(transit * 1e5), HeapPerTurn: 90000, GoPerTurn: 7.5,
		Other: 0.3, Cores: 1.2}
}

func fixtureConcurrency() []concRow {
	var rows []concRow
	for i, s := range []concSettings{{N: 1, Tokens: 200, Interval: 5 * time.Millisecond}, {N: 100, Tokens: 80, Interval: 40 * time.Millisecond},
		{N: 1000, Tokens: 30, Interval: 400 * time.Millisecond}} {
		f := float64(i + 1)
		row := concRow{concSettings: s, Direct: fixtureSide(0.02*f, 0, ""), Relay: fixtureSide(0.03*f, 0, ""),
			Keygate: fixtureSide(0.5*f, 0, ""), Own: fixtureSide(0.6*f, 0, "")}
		if s.N == 1000 {
			row.Keygate = fixtureSide(1, 2, "stream ended without the scripted text")
			row.Own.HWMPerTurn = 0
			row.Direct.FirstErr = "post provider: connection reset"
		}
		rows = append(rows, row)
	}
	return rows
}

func fixtureCheckpoint() []checkpointRow {
	return []checkpointRow{
		{Turn: 10, Window: 5, Down: 5000, Up: 3000, Checkpoint: 2000, Stored: 476, CPU: 3 * time.Millisecond, Wall: 25 * time.Millisecond, Loads: 1, LoadedMessages: 20, LoadTime: 100 * time.Microsecond},
		{Turn: 100, Window: 5, Down: 45000, Up: 30000, Checkpoint: 40000, Stored: 478, CPU: 6 * time.Millisecond, Wall: 30 * time.Millisecond, Loads: 1, LoadedMessages: 200, LoadTime: time.Millisecond},
		{Turn: 1000, Window: 5, Down: 409000, Up: 300000, Checkpoint: 400000, Stored: 480, CPU: 40 * time.Millisecond, Wall: 70 * time.Millisecond, Loads: 1, LoadedMessages: 2000, LoadTime: 9 * time.Millisecond, Errors: 1},
	}
}

func fixtureStores() []storeRow {
	return []storeRow{
		{Engine: "SQLite", Op: "append message", Source: "file in /tmp (WAL, synchronous=NORMAL)", PerOp: 80 * time.Microsecond, Calls: durs(0.07, 0.08, 0.3), Allocs: 120, Bytes: 9000, N: 15000},
		{Engine: "SQLite", Op: "commit tool result", Source: "file in /tmp (WAL, synchronous=NORMAL)", PerOp: 120 * time.Microsecond, Calls: durs(0.1, 0.12, 0.5), Allocs: 220, Bytes: 19000, N: 9000},
		{Engine: "PostgreSQL", Op: "append message", Source: "127.0.0.1:5432", PerOp: 400 * time.Microsecond, Calls: durs(0.35, 0.4, 1.2), Allocs: 150, Bytes: 12000, N: 3000},
		{Engine: "PostgreSQL", Op: "commit tool result", Err: "commit tool result failed"},
	}
}

func fixtureRouting() *routingReport {
	return &routingReport{Settings: routingSettings{Failovers: 40, Turns: 20}, Direct: durs(0.5, 0.6, 0.9), Failover: durs(1.1, 1.3, 2),
		Sticky: cacheRate{Read: 95000, Input: 10500}, Alternating: cacheRate{Read: 47500, Input: 58000}, Errors: 1, MessageTokens: msgTokens}
}

func fixtureTurnStart() *turnStartReport {
	ts := &turnStartReport{Settings: turnStartSettings{Levels: []int{1, 16, 64}, Rounds: []int{4, 2, 1}, Tokens: 2000, Interval: 5 * time.Millisecond,
		FirstDelay: 300 * time.Millisecond, History: 1000, Flood: 64},
		SeedErrors: 2, SeedTook: 42 * time.Second, SeedCPU: 7620 * time.Microsecond, RequestBytes: 61234,
		IdleRSS: 60 << 20, PeakBeforeFlood: 150 << 20, Other: 0.47}
	for i, n := range ts.Settings.Levels {
		f := float64(i*i + 1)
		l := turnStartLevel{N: n, Turns: 4 * n, Errors: i / 2, ToProvider: durs(6*f, 6.6*f, 9*f), TTFT: durs(307*f, 307.5*f, 320*f),
			DirectTTFT: durs(300, 300.4, 301), Transit: durs(0.2*f, 0.3*f, 9*f), DirectTransit: durs(0.02, 0.03, 0.1), Traced: 4*n - 1, CPU: 7 * time.Millisecond}
		for p := range l.Phases {
			l.Phases[p] = durs(float64(p+1)*f*0.3, float64(p+1)*f*0.4)
		}
		if l.Errors > 0 {
			l.FirstErr = "read run stream: unexpected EOF"
		}
		ts.Levels = append(ts.Levels, l)
	}
	ts.Flood = turnStartFlood{N: 64, Tokens: 2000, Errors: 0, DirectErrors: 1, TokensPerSec: 98000, DirectTokensPerSec: 310000,
		CPUPer1k: 9 * time.Millisecond, PeakRSS: 120 << 20, RSSBefore: 70 << 20, HWMReset: true, RSSUnsettled: 140 << 20}
	return ts
}

// meetTargets changes the fixture so that every target is met.
func meetTargets(lat []latencyRow, conc []concRow, cp []checkpointRow, ts *turnStartReport) {
	for i := range lat {
		lat[i].KeygateT, lat[i].Errors = durs(1, 1.1, 1.2), 0
	}
	for i := range conc {
		conc[i].Keygate = fixtureSide(0.021, 0, "")
		conc[i].Own = fixtureSide(0.022, 0, "")
		conc[i].Direct.FirstErr = ""
	}
	cp[len(cp)-1].Down = 5500
	for i := range ts.Levels {
		l := &ts.Levels[i]
		l.TTFT, l.Transit, l.Errors, l.FirstErr = durs(300.5, 301, 302), durs(0.03, 0.04, 0.05), 0, ""
	}
	ts.Flood.PeakRSS, ts.Flood.TokensPerSec, ts.Flood.CPUPer1k = 70<<20, 120000, 8*time.Millisecond
}

// fixtureRun is the run the fixture's report describes.
func fixtureRun() runInfo {
	return runInfo{Machine: machine{CPUs: 2, Model: "Fixture CPU", Memory: "7.8 GiB", Go: "go1.26", OS: "linux/amd64"},
		Started: time.Date(2026, 12, 1, 19, 21, 0, 0, time.UTC), Took: 8 * time.Minute, Command: "go tool -modfile=tools/go.mod task bench",
		Priority: "default (nice 0)", LoadStart: "3.1 2.9 2.5", LoadEnd: "4.0 3.5 3.0"}
}

// fixtureReport is a judged report of every scenario; met makes every
// target met; base, when set, is the previous run it is judged against.
func fixtureReport(met bool, base *report) *report {
	lat, conc, cp, ts, tab := fixtureLatency(), fixtureConcurrency(), fixtureCheckpoint(), fixtureTurnStart(), fixtureTab()
	if met {
		meetTargets(lat, conc, cp, ts)
		tab.Many.TTFT = durs(31, 32, 34)
		tab.Many.DirectTTFT = durs(30, 31, 33)
		tab.Many.AbortToCancel = durs(1, 2, 9)
		tab.Many.Cancelled = tab.Many.Aborted
		tab.CPULarge = 2 * time.Millisecond
	}
	r := &report{runInfo: fixtureRun(), Names: scenarioNames(scenarios), Sections: []section{
		{Name: "latency", Result: &latencyResult{Settings: latencySettings{Turns: 40, Warmup: 5, Tokens: 100, Interval: 2 * time.Millisecond}, Rows: lat}, Other: 0.1},
		{Name: "concurrency", Result: &concurrencyResult{Rows: conc}},
		{Name: "checkpoint", Result: &checkpointResult{At: []int{10, 100, 1000}, Window: 5, Tokens: 10, Linger: benchLinger, Rows: cp}, Other: 0.2},
		{Name: "store", Result: &storeResult{Rows: fixtureStores()}, Other: 0.3},
		{Name: "routing", Result: fixtureRouting(), Other: 0.4},
		{Name: "turnstart", Result: ts, Other: 0.5},
		{Name: "tab", Result: tab, Other: 0.6},
		{Name: "compat", Result: fixtureCompat(met), Other: 0.7},
		{Name: "secretguard", Result: &guardResult{Rules: 222, Rows: []guardRow{
			{Case: "off", What: "the guard off", PerOp: 60, N: 1000},
			{Case: "cold", What: "every text unseen", PerOp: 114 * time.Millisecond, Allocs: 1339, N: 10, Ratio: 1.9e6},
			{Case: "next turn", What: "one new message", PerOp: 3 * time.Millisecond, Allocs: 64, N: 300, Ratio: 5e4},
		}}, Other: 0.8},
	}}
	finish(r, base)
	return r
}

// fixtureTab has one typist within the goals and many typists past them,
// one abort the model never saw end.
func fixtureTab() *tabReport {
	set := tabSettings{Sequential: 300, SmallLines: 200, LargeLines: 2000, Typists: 50, Every: 150 * time.Millisecond,
		Duration: 15 * time.Second, AbortOf: 3, AbortAfter: 10 * time.Millisecond, FirstDelay: 30 * time.Millisecond, Tokens: 16, Interval: 2 * time.Millisecond}
	return &tabReport{Settings: set, BytesSmall: 12000, BytesLarge: 120000, CPUSmall: 1500 * time.Microsecond, CPULarge: 3500 * time.Microsecond,
		One:   tabLevel{Name: "one typist, 200-line file", Requests: 300, Completed: 300, TTFT: durs(31, 31.5, 33), DirectTTFT: durs(30, 30.2, 31)},
		Large: tabLevel{Name: "one typist, 2000-line file", Requests: 300, Completed: 300, TTFT: durs(32, 33, 35), DirectTTFT: durs(30, 30.2, 31)},
		Many: tabLevel{Name: "50 typists", Requests: 5000, Completed: 1660, Errors: 6, FirstErr: "stream ended without a suggestion",
			TTFT: durs(36, 40, 60), DirectTTFT: durs(31, 32, 35), Aborted: 3334, Cancelled: 3333, AbortToCancel: durs(2, 3, 12)},
	}
}

// fixtureCompat has the same-protocol row within the goal when met.
func fixtureCompat(met bool) *compatReport {
	same := compatRow{Name: "Anthropic Messages in, Anthropic target (same protocol)", Requests: 60,
		TTFT: durs(1.9, 2.0, 2.6), DirectTTFT: durs(0.5, 0.6, 0.9), Transit: durs(0.2, 0.3, 0.9), DirectTransit: durs(0.05, 0.06, 0.1), CPUPer1k: 4 * time.Millisecond}
	if met {
		same.TTFT = durs(1.2, 1.3, 1.6)
	}
	return &compatReport{Settings: compatSettings{Requests: 60, BodyBytes: 50 << 10, Tokens: 100, Interval: 2 * time.Millisecond}, Rows: []compatRow{same,
		{Name: "Anthropic Messages in, OpenAI Chat target (translated)", Requests: 60, Errors: 1, FirstErr: "read stream: unexpected EOF",
			TTFT: durs(2.5, 2.6, 3.1), DirectTTFT: durs(0.5, 0.6, 0.9), Transit: durs(0.3, 0.4, 1), DirectTransit: durs(0.05, 0.06, 0.1), CPUPer1k: 6 * time.Millisecond}}}
}
