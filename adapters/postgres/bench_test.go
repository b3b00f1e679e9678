package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/ports/porttest"
)

// benchStore opens a store on a fresh database for one benchmark.
func benchStore(b *testing.B) *relstore.Store {
	ctx := context.Background()
	pg, err := pgtest.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = pg.Close() })
	db, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(db.Close)
	return postgres.NewStore(db)
}

func BenchmarkAppendMessage(b *testing.B) { porttest.BenchAppendMessage(b, benchStore(b).Stores()) }

func BenchmarkCommitToolResult(b *testing.B) {
	porttest.BenchCommitToolResult(b, benchStore(b).Stores())
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
