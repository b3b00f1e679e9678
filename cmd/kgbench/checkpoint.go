package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"syscall"
	"time"

	"keygate/adapters/cursor/cursortest"
)

// checkpointRow is a window of turns ending at turn Turn of one
// conversation, averaged per turn.
type checkpointRow struct {
	Turn, Window int
	// Down and Up are the HTTP body bytes to and from the client (RunSSE
	// stream, BidiAppends); Checkpoint the encoded checkpoint updates among
	// Down; Stored the growth of the conversation's checkpoint storage.
	Down, Up, Checkpoint, Stored float64
	CPU, Wall                    time.Duration
	Errors                       int
	// Loads, LoadTime and LoadedMessages are the full conversation loads
	// per turn, their time and the messages they decoded.
	Loads, LoadedMessages float64
	LoadTime              time.Duration
}

// checkpointResult is scenario 3: the windows ending at each of At.
type checkpointResult struct {
	At []int
	// Window turns are averaged at each measured length; each turn streams
	// Tokens tokens without pacing; a finished stream lingers Linger.
	Window, Tokens int
	Linger         time.Duration
	Rows           []checkpointRow
}

// Last is the conversation's length.
func (c checkpointResult) Last() int { return c.At[len(c.At)-1] }

func runCheckpoint(ctx context.Context, r *rig) (*checkpointResult, error) {
	out := &checkpointResult{At: []int{10, 100, targetCheckpointLast}, Window: 5, Tokens: 10, Linger: benchLinger}
	if r.quick {
		out.At = []int{10, 100}
	}
	var err error
	out.Rows, err = measureCheckpoints(ctx, r.stack, r.prov, r.clk, out.At, out.Window, out.Tokens)
	return out, err
}

// The checkpoint target: bytes per turn at turn targetCheckpointLast at
// most targetCheckpointX times those at turn targetCheckpointFirst.
const (
	targetCheckpointX     = 1.5
	targetCheckpointFirst = 10
	targetCheckpointLast  = 1000
)

// checkpointJudgement compares the first and the last measured window.
type checkpointJudgement struct {
	Limit       float64
	First, Last checkpointRow
}

// Stored and Sent are the last window's bytes stored and sent to the
// client over the first's; UpdateKB is one checkpoint update's size at
// the last (a turn publishes four), in KB.
func (j checkpointJudgement) Stored() float64   { return j.Last.Stored / j.First.Stored }
func (j checkpointJudgement) Sent() float64     { return j.Last.Down / j.First.Down }
func (j checkpointJudgement) UpdateKB() float64 { return j.Last.Checkpoint / 4 / 1000 }

func judgeCheckpoint(res, _ *checkpointResult) []target {
	t := target{Row: "checkpoint bytes", Why: "checkpoint bytes"}
	j := checkpointJudgement{Limit: targetCheckpointX}
	var rows []checkpointRow
	if res != nil {
		rows = res.Rows
	}
	var first, last bool
	for _, r := range rows {
		switch r.Turn {
		case targetCheckpointFirst:
			j.First, first = r, true
		case targetCheckpointLast:
			j.Last, last = r, true
		}
	}
	t.Judged = first && last
	t.Met, t.Data = t.Judged && j.Stored() <= j.Limit && j.Sent() <= j.Limit, j
	return []target{t}
}

// measureCheckpoints runs one conversation of up to last turns through
// Keygate, each turn a new request id carrying the client's latest
// checkpoint, as Cursor sends follow-ups, and measures the windows ending at
// each of at.
func measureCheckpoints(ctx context.Context, s *stack, prov *paced, clk *clock, at []int, window, tokens int) ([]checkpointRow, error) {
	prov.set(pace{Tokens: tokens})
	var bytes byteCounter
	base, _ := s.baseURL(false)
	hc := &http.Client{Transport: &countingTransport{next: &http.Transport{MaxIdleConnsPerHost: 16}, n: &bytes}}
	defer hc.CloseIdleConnections()
	conv := "conv-kgb-checkpoint"
	window = max(window, 1)
	c := cursortest.NewClient(base, hc, "req-kgb-cp-0")
	var rows []checkpointRow
	var row checkpointRow
	var stored0 int64
	var cpu0, loadTime0 time.Duration
	var loads0, loaded0 int64
	var wall0 time.Time
	next := 0
	for turn := 1; turn <= at[len(at)-1]; turn++ {
		measured := next < len(at) && turn > at[next]-window
		if measured && turn == at[next]-window+1 {
			st, err := s.store.CheckpointStorage(ctx, conv)
			if err != nil {
				return nil, err
			}
			row, stored0, cpu0, wall0 = checkpointRow{Turn: at[next], Window: window}, st.Bytes(), cpuTime(), time.Now()
			loads0, loadTime0, loaded0 = s.loads.snapshot()
			bytes.reset()
		}
		id := fmt.Sprintf("kgb-cp-%d", turn)
		tc := c.WithRequestID("req-" + id)
		first := cursortest.Request(conv, kinds[0].model, cursortest.UserMessageAction(id, "question "+id), c.Checkpoint())
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		res := keygateTurn(tctx, tc, first, id, tokens, clk, prov)
		cancel()
		if res.err != nil && !measured {
			return nil, fmt.Errorf("turn %d: %w", turn, res.err)
		}
		if !measured {
			continue
		}
		if res.err != nil {
			row.Errors++
		}
		row.Checkpoint += float64(res.checkpointBytes)
		if turn == at[next] {
			row.CPU, row.Wall = cpuTime()-cpu0, time.Since(wall0)
			st, err := s.store.CheckpointStorage(ctx, conv)
			if err != nil {
				return nil, err
			}
			w := float64(window)
			row.Down, row.Up = float64(bytes.down.Load())/w, float64(bytes.up.Load())/w
			row.Checkpoint /= w
			row.Stored = float64(st.Bytes()-stored0) / w
			row.CPU, row.Wall = row.CPU/time.Duration(window), row.Wall/time.Duration(window)
			loads, loadTime, loaded := s.loads.snapshot()
			row.Loads, row.LoadedMessages = float64(loads-loads0)/w, float64(loaded-loaded0)/w
			row.LoadTime = (loadTime - loadTime0) / time.Duration(window)
			rows = append(rows, row)
			next++
		}
	}
	return rows, nil
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// byteCounter counts HTTP body bytes in both directions.
type byteCounter struct{ up, down atomic.Int64 }

func (b *byteCounter) reset() { b.up.Store(0); b.down.Store(0) }

// countingTransport counts request and response body bytes.
type countingTransport struct {
	next http.RoundTripper
	n    *byteCounter
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = &countingBody{ReadCloser: r.Body, n: &t.n.up}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.n.down}
	return resp, nil
}

func (t *countingTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
