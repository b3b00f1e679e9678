package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/ports/porttest"
)

// benchStore opens a store in a fresh directory for one benchmark.
func benchStore(b *testing.B) *relstore.Store {
	db, err := sqlite.Open(context.Background(), b.TempDir(), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return sqlite.NewStore(db)
}

func BenchmarkAppendMessage(b *testing.B) { porttest.BenchAppendMessage(b, benchStore(b).Stores()) }

func BenchmarkCommitToolResult(b *testing.B) {
	porttest.BenchCommitToolResult(b, benchStore(b).Stores())
}

// BenchmarkTurnStarts: 64 turns at a time (32 per core on 2 cores) write
// their starts; ns/op is the store's time per turn under that queue.
func BenchmarkTurnStarts(b *testing.B) {
	b.SetParallelism(32)
	porttest.BenchTurnStarts(b, benchStore(b).Stores(), 40<<10)
}

func BenchmarkLoadCheckpoint(b *testing.B) {
	for _, turns := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("%dmsgs", 2*turns), func(b *testing.B) {
			porttest.BenchLoadCheckpoint(b, benchStore(b).Stores(), turns)
		})
	}
}

func BenchmarkCheckpointBytes(b *testing.B) {
	st := benchStore(b)
	porttest.BenchCheckpointBytes(b, st.Stores(), func(ctx context.Context, conv string) (int64, int64, error) {
		s, err := st.CheckpointStorage(ctx, conv)
		return s.Bytes(), s.FullCopyBytes(), err
	})
}

// BenchmarkPromptBytes measures what the cache insight keeps of a 20-call
// agent conversation, whole requests against shapes.
func BenchmarkPromptBytes(b *testing.B) {
	st := benchStore(b)
	porttest.BenchPromptBytes(b, st.Prompts(), st.PromptBytes)
}
