package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
)

// benchRelays opens two replicas' relays on a fresh database.
func benchRelays(b *testing.B) (a, z *postgres.Relay) {
	ctx := context.Background()
	pg, err := pgtest.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = pg.Close() })
	open := func() *postgres.Relay {
		db, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(db.Close)
		r, err := postgres.NewRelay(ctx, db, postgres.RelayOptions{}, zap.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(r.Close)
		return r
	}
	return open(), open()
}

// BenchmarkRelayForward measures a forwarded append: Forward alone (what
// the client waits for before its BidiAppend is answered), and Forward
// until the replica holding the key has it (what the run waits for). Each
// is one statement now, so a commit each; BenchmarkAppendRoundTrip in
// adapters/cursor measures the same through the HTTP routes.
//
//	go test -run '^$' -bench RelayForward ./adapters/postgres/
func BenchmarkRelayForward(b *testing.B) {
	payload := make([]byte, 2<<10)
	b.Run("stored", func(b *testing.B) {
		_, z := benchRelays(b)
		ctx := context.Background()
		for i := 0; b.Loop(); i++ {
			if err := z.Forward(ctx, "bench", fmt.Sprintf("bench/stored-%d", i%64), payload, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("delivered", func(b *testing.B) {
		a, z := benchRelays(b)
		ctx := context.Background()
		got := make(chan struct{}, 1)
		l, err := a.Acquire(ctx, "bench/delivered", func([]byte) { got <- struct{}{} })
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { l.Release(false) })
		for b.Loop() {
			if err := z.Forward(ctx, "bench", "bench/delivered", payload, false); err != nil {
				b.Fatal(err)
			}
			<-got
		}
	})
}
