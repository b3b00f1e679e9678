package main

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
	"keygate/ports/porttest"
)

// storeRow is one store operation on one engine, run by testing.Benchmark
// with the shared store benchmarks of ports/porttest (the ones the
// adapters' own Benchmark functions run); the store is wrapped so that
// every timed call is also recorded, for the distribution.
type storeRow struct {
	Engine, Op, Source string
	PerOp              time.Duration
	Calls              dist
	Allocs, Bytes      int64
	N                  int
	Err                string
}

// storeResult is scenario 4.
type storeResult struct{ Rows []storeRow }

func runStore(ctx context.Context, _ *rig) (*storeResult, error) {
	return &storeResult{Rows: measureStores(ctx)}, nil
}

// storeLine is a row with its p50 over SQLite's for the same operation in
// this run (0 for SQLite's own rows, or without one).
type storeLine struct {
	R     storeRow
	Ratio float64
}

func (s storeResult) Lines() []storeLine {
	base := map[string]storeRow{}
	for _, r := range s.Rows {
		if r.Engine == "SQLite" {
			base[r.Op] = r
		}
	}
	out := make([]storeLine, len(s.Rows))
	for i, r := range s.Rows {
		out[i].R = r
		if b, ok := base[r.Op]; ok && r.Engine != "SQLite" && b.Calls.P50() > 0 {
			out[i].Ratio = float64(r.Calls.P50()) / float64(b.Calls.P50())
		}
	}
	return out
}

// measureStores times append and tool-result commit on a fresh SQLite
// store and, when one can be found or started, a fresh PostgreSQL database.
func measureStores(ctx context.Context) []storeRow {
	var rows []storeRow
	dir, err := os.MkdirTemp("", "kgbench-store-")
	if err != nil {
		return []storeRow{{Engine: "SQLite", Err: err.Error()}}
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	if err != nil {
		rows = append(rows, storeRow{Engine: "SQLite", Err: err.Error()})
	} else {
		rows = append(rows, storeOps("SQLite", "file in "+os.TempDir()+" (WAL, synchronous=NORMAL)", relstore.New(db, nil).Stores())...)
		_ = db.Close()
	}
	pg, err := pgtest.New(ctx)
	if err != nil {
		return append(rows, storeRow{Engine: "PostgreSQL", Err: err.Error()})
	}
	defer pg.Close()
	pdb, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
	if err != nil {
		return append(rows, storeRow{Engine: "PostgreSQL", Err: err.Error()})
	}
	defer pdb.Close()
	return append(rows, storeOps("PostgreSQL", pg.Source, postgres.NewStore(pdb).Stores())...)
}

func storeOps(engine, source string, st ports.Stores) []storeRow {
	var rows []storeRow
	calls := &recorder{}
	st.Conversations = timedConversations{ConversationStore: st.Conversations, rec: calls}
	st.ToolRounds = timedToolRounds{ToolRoundStore: st.ToolRounds, rec: calls}
	for _, op := range []struct {
		name string
		fn   func(*testing.B, ports.Stores)
	}{{"append message", porttest.BenchAppendMessage}, {"commit tool result", porttest.BenchCommitToolResult}} {
		calls.take(op.name)
		r := testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); op.fn(b, st) })
		row := storeRow{Engine: engine, Op: op.name, Source: source, N: r.N, Calls: newDist(calls.take("")),
			PerOp: time.Duration(r.NsPerOp()), Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp()}
		if r.N == 0 {
			row.Err = op.name + " failed"
		}
		rows = append(rows, row)
	}
	return rows
}

// recorder keeps the durations of the calls of the operation being
// measured: Apply while appending, Commit while committing.
type recorder struct {
	mu    sync.Mutex
	op    string
	calls []time.Duration
}

// take switches to op and returns the calls recorded for the previous one.
func (r *recorder) take(op string) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.op, r.calls = op, nil
	return out
}

func (r *recorder) add(op string, start time.Time) {
	d := time.Since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.op == op {
		r.calls = append(r.calls, d)
	}
}

type timedConversations struct {
	ports.ConversationStore
	rec *recorder
}

func (c timedConversations) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	defer c.rec.add("append message", time.Now())
	return c.ConversationStore.Apply(ctx, w)
}

type timedToolRounds struct {
	ports.ToolRoundStore
	rec *recorder
}

func (t timedToolRounds) Commit(ctx context.Context, runID, roundID string, result llm.ToolResult) (ports.ToolRoundCommit, error) {
	defer t.rec.add("commit tool result", time.Now())
	return t.ToolRoundStore.Commit(ctx, runID, roundID, result)
}

var (
	_ ports.ConversationStore = timedConversations{}
	_ ports.ToolRoundStore    = timedToolRounds{}
)
