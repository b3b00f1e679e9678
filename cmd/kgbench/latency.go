package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
)

// latencySettings pace scenario 1: one turn at a time.
type latencySettings struct {
	Turns, Warmup, Tokens int
	Interval              time.Duration
}

// The two Keygate paths of scenario 1.
const (
	pathPlain = "Cursor → Keygate"
	pathProxy = "Cursor → proxy (TLS) → Keygate"
)

// latencyRow is one protocol on one path, next to the direct baseline
// measured in the same loop (turns interleaved: direct, Keygate, proxy).
type latencyRow struct {
	Kind     string
	Path     string
	Direct   dist // per-token transit, provider write to plain client read
	Relay    dist // the same through the relay (one more hop, no decoding)
	Keygate  dist // the same through Keygate to the simulator
	DirectT  dist // time to first token
	RelayT   dist
	KeygateT dist
	// DirectR and KeygateR are the times from the client's request to the
	// provider receiving its request: the part of TTFT spent before the
	// model call (in Keygate: routing, history, compile, run start).
	DirectR, KeygateR dist
	// KV is the client's time on KV reply round trips within KeygateR
	// (overlapped with Keygate's work, not waited for).
	KV dist
	// Errors are failed Keygate turns; DirectErrors failed baseline turns.
	Errors, DirectErrors int
}

func (r latencyRow) AddedP50() time.Duration     { return r.Keygate.P50() - r.Direct.P50() }
func (r latencyRow) OwnP50() time.Duration       { return r.Keygate.P50() - r.Relay.P50() }
func (r latencyRow) OwnP99() time.Duration       { return r.Keygate.P99() - r.Relay.P99() }
func (r latencyRow) AddedP99() time.Duration     { return r.Keygate.P99() - r.Direct.P99() }
func (r latencyRow) AddedTTFTP50() time.Duration { return r.KeygateT.P50() - r.DirectT.P50() }
func (r latencyRow) AddedTTFTP99() time.Duration { return r.KeygateT.P99() - r.DirectT.P99() }

// AllErrors are the failed turns of the row's Keygate path and baseline.
func (r latencyRow) AllErrors() int { return r.Errors + r.DirectErrors }

// latencyResult is scenario 1: every protocol on both paths.
type latencyResult struct {
	Settings latencySettings
	Rows     []latencyRow
}

func runLatency(ctx context.Context, r *rig) (*latencyResult, error) {
	set := latencySettings{Turns: 40, Warmup: 5, Tokens: 100, Interval: 2 * time.Millisecond}
	if r.quick {
		set.Turns = 5
	}
	rows, err := measureLatency(ctx, r.stack, r.prov, r.relay, r.clk, set)
	return &latencyResult{Settings: set, Rows: rows}, err
}

// targetAddedTTFT is the goal for the added time to first token.
const targetAddedTTFT = 2 * time.Millisecond

// ttftJudgement is the TTFT target: its limit and the protocol whose
// added TTFT is the largest on the plain path.
type ttftJudgement struct {
	Limit time.Duration
	Worst latencyRow
}

func judgeLatency(res, _ *latencyResult) []target {
	t := target{Row: "latency ttft", Why: "latency ttft"}
	j := ttftJudgement{Limit: targetAddedTTFT}
	if res != nil {
		for _, l := range res.Rows {
			if l.Path == pathPlain && (!t.Judged || l.AddedTTFTP50() > j.Worst.AddedTTFTP50()) {
				j.Worst, t.Judged = l, true
			}
		}
	}
	t.Met, t.Data = t.Judged && j.Worst.AddedTTFTP50() <= j.Limit, j
	return []target{t}
}

// measureLatency runs scenario 1 for every protocol, with and without the
// proxy. Each turn is a fresh conversation.
func measureLatency(ctx context.Context, s *stack, prov *paced, rel *relay, clk *clock, set latencySettings) ([]latencyRow, error) {
	prov.set(pace{Tokens: set.Tokens, Interval: set.Interval})
	direct := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer direct.CloseIdleConnections()
	var rows []latencyRow
	for ki, k := range kinds {
		url, err := provider.RequestURL(prov.srv.URL, false, k.kind)
		if err != nil {
			return nil, err
		}
		relayURL, err := provider.RequestURL(rel.srv.URL, false, k.kind)
		if err != nil {
			return nil, err
		}
		plain := latencyRow{Kind: k.name, Path: pathPlain}
		proxied := latencyRow{Kind: k.name, Path: pathProxy}
		var directTok, relayed []turnResult
		for t := range set.Warmup + set.Turns {
			id := fmt.Sprintf("kgb-lat-%d-%d", ki, t)
			d := directTurn(ctx, direct, url, id+"-d", set.Tokens, clk, prov)
			rd := directTurn(ctx, direct, relayURL, id+"-r", set.Tokens, clk, prov)
			results := [2]turnResult{}
			for p, viaProxy := range []bool{false, true} {
				base, hc := s.baseURL(viaProxy)
				pid := fmt.Sprintf("%s-%d", id, p)
				var appends [][2]time.Duration
				c := cursortest.NewClient(base, timedClient(hc, clk, &appends), "req-"+pid)
				results[p] = keygateTurn(ctx, c, newTurn(pid, k.model), pid, set.Tokens, clk, prov)
				results[p].appends = appends
			}
			if t < set.Warmup {
				continue
			}
			directTok, relayed = append(directTok, d), append(relayed, rd)
			plain.add(results[0])
			proxied.add(results[1])
		}
		for _, row := range []*latencyRow{&plain, &proxied} {
			for _, d := range directTok {
				row.Direct = append(row.Direct, d.latencies()...)
				if t, ok := d.ttft(); ok {
					row.DirectT = append(row.DirectT, t)
					row.DirectR = append(row.DirectR, d.reached-d.start)
				}
				if d.err != nil {
					row.DirectErrors++
				}
			}
			for _, d := range relayed {
				row.Relay = append(row.Relay, d.latencies()...)
				if t, ok := d.ttft(); ok {
					row.RelayT = append(row.RelayT, t)
				}
				if d.err != nil {
					row.DirectErrors++
				}
			}
			row.Relay, row.RelayT = newDist(row.Relay), newDist(row.RelayT)
			row.Direct, row.Keygate = newDist(row.Direct), newDist(row.Keygate)
			row.DirectT, row.KeygateT = newDist(row.DirectT), newDist(row.KeygateT)
			row.DirectR, row.KeygateR, row.KV = newDist(row.DirectR), newDist(row.KeygateR), newDist(row.KV)
			rows = append(rows, *row)
		}
	}
	return rows, nil
}

func (r *latencyRow) add(res turnResult) {
	if res.err != nil {
		r.Errors++
		return
	}
	r.Keygate = append(r.Keygate, res.latencies()...)
	if t, ok := res.ttft(); ok {
		r.KeygateT = append(r.KeygateT, t)
		r.KeygateR = append(r.KeygateR, res.reached-res.start)
		r.KV = append(r.KV, res.kvWait())
	}
}
