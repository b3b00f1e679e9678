package main

import (
	"fmt"
	"time"
)

// target is one goal of the issue, judged on this run's numbers.
type target struct {
	Goal, Measured string
	Met            bool
	// Judged is false when the scenario did not run.
	Judged bool
	Note   string
}

// Target thresholds from the issue.
const (
	targetAddedP99     = 50 * time.Microsecond
	targetAddedTTFT    = 2 * time.Millisecond
	targetRSSPerTurn   = 256 * 1024
	targetCheckpointX  = 1.5
	targetConcurrentAt = 100
	targetManyTurns    = 1000
)

func judge(r *report) []target {
	var out []target

	t := target{Goal: fmt.Sprintf("p99 added latency per token ≤ %s at %d concurrent turns", us(targetAddedP99), targetConcurrentAt)}
	for _, c := range r.Concurrency {
		if c.N == targetConcurrentAt {
			added := c.Keygate.Transit.p99() - c.Direct.Transit.p99()
			t.Judged, t.Met = true, added <= targetAddedP99
			t.Measured = fmt.Sprintf("%s (Keygate p99 %s − direct p99 %s)", us(added), us(c.Keygate.Transit.p99()), us(c.Direct.Transit.p99()))
			if !t.Met {
				t.Note = fmt.Sprintf("missed by %s (%.1f× the target). The byte-copying relay alone adds %s at p99; Keygate beyond the relay %s; steady p99 (middle of the turns) %s.",
					us(added-targetAddedP99), float64(added)/float64(targetAddedP99), us(c.Relay.Transit.p99()-c.Direct.Transit.p99()),
					us(c.Keygate.Transit.p99()-c.Relay.Transit.p99()), us(c.Keygate.Steady.p99()))
			}
		}
	}
	out = append(out, t)

	t = target{Goal: fmt.Sprintf("added time to first token ≤ %s on SQLite", ms(targetAddedTTFT))}
	var worst latencyRow
	for _, l := range r.LatencyRows {
		if l.Path == pathPlain && (!t.Judged || l.addedTTFTP50() > worst.addedTTFTP50()) {
			worst, t.Judged = l, true
		}
	}
	if t.Judged {
		added := worst.addedTTFTP50()
		t.Met = added <= targetAddedTTFT
		t.Measured = fmt.Sprintf("%s p50 (worst protocol: %s; p99 %s)", ms(added), worst.Kind, ms(worst.addedTTFTP99()))
		if !t.Met {
			t.Note = fmt.Sprintf("missed by %s (%.1f× the target); %s of Keygate's TTFT pass before the provider gets the request, %s from there to the first token at the client (direct: %s).",
				ms(added-targetAddedTTFT), float64(added)/float64(targetAddedTTFT), ms(worst.KeygateR.p50()),
				ms(worst.KeygateT.p50()-worst.KeygateR.p50()), ms(worst.DirectT.p50()-worst.DirectR.p50()))
		}
	}
	out = append(out, t)

	t = target{Goal: fmt.Sprintf("%d concurrent turns with 0 errors and ≤ %s resident memory per turn", targetManyTurns, kib(targetRSSPerTurn))}
	for _, c := range r.Concurrency {
		if c.N == targetManyTurns {
			// Keygate's own process is what the target is about; the
			// high-water mark is its true peak, the sampled one the fallback.
			own, how := c.Own.HWMPerTurn, "high-water mark"
			if own == 0 {
				own, how = c.Own.RSSPerTurn, "peak sampled every 20 ms"
			}
			errs := c.Own.Errors + c.Keygate.Errors
			t.Judged = true
			t.Met = errs == 0 && own <= targetRSSPerTurn
			t.Measured = fmt.Sprintf("%d errors; **%s per turn in Keygate's own process** (%s; %s sampled while streaming); %s per turn for the whole process when Keygate shares it with the fake provider and the simulated clients",
				errs, kib(own), how, kib(c.Own.RSSPerTurn), kib(c.Keygate.RSSPerTurn))
			switch {
			case own <= targetRSSPerTurn:
				t.Note = fmt.Sprintf("memory met by %s per turn (%.0f%% of the target) in Keygate's own process; the whole-process figure, which also counts the load generator, would be %.2f× the target.",
					kib(targetRSSPerTurn-own), 100*own/targetRSSPerTurn, c.Keygate.RSSPerTurn/targetRSSPerTurn)
			default:
				t.Note = fmt.Sprintf("memory over by %s per turn (%.2f× the target) in Keygate's own process; its live heap at peak %s per turn.",
					kib(own-targetRSSPerTurn), own/targetRSSPerTurn, kib(c.Own.HeapPerTurn))
			}
			if errs > 0 {
				t.Note += fmt.Sprintf(" %d of %d turns failed in its own process, %d of %d in process.", c.Own.Errors, c.N, c.Keygate.Errors, c.N)
			}
		}
	}
	out = append(out, t)

	t = target{Goal: fmt.Sprintf("checkpoint bytes per turn at turn 1,000 ≤ %.1f × turn 10", targetCheckpointX)}
	var first, last *checkpointRow
	for i := range r.Checkpoint {
		switch r.Checkpoint[i].Turn {
		case 10:
			first = &r.Checkpoint[i]
		case 1000:
			last = &r.Checkpoint[i]
		}
	}
	if first != nil && last != nil {
		stored, sent := last.Stored/first.Stored, last.Down/first.Down
		t.Judged = true
		t.Met = stored <= targetCheckpointX && sent <= targetCheckpointX
		t.Measured = fmt.Sprintf("stored: %.0f → %.0f B (%.2f×); sent to the client: %.0f → %.0f B (%.1f×)",
			first.Stored, last.Stored, stored, first.Down, last.Down, sent)
		switch {
		case stored <= targetCheckpointX && sent > targetCheckpointX:
			t.Note = fmt.Sprintf("met for storage; missed for the bytes sent to the client by %.1f× the allowed %.1f×.", sent/targetCheckpointX, targetCheckpointX)
		case !t.Met:
			t.Note = fmt.Sprintf("missed: storage %.2f×, sent %.1f× (allowed %.1f×).", stored, sent, targetCheckpointX)
		}
	}
	out = append(out, t)
	return append(out, judgeTurnStart(r.TurnStart)...)
}
