package cursor_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
)

// BenchmarkAppendRoundTrip measures one KV round trip of a turn (KV SET on
// the RunSSE, the client's ACK as a BidiAppend back into the turn) on one
// process, and on two replicas sharing a database with the ACK reaching
// the replica that holds the RunSSE or the other one (forwarded through
// PostgreSQL). The difference is what the relay adds per append.
//
//	go test -run '^$' -bench AppendRoundTrip ./adapters/cursor/
func BenchmarkAppendRoundTrip(b *testing.B) {
	ctx := context.Background()
	pg, err := pgtest.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = pg.Close() })

	serve := func(b *testing.B, relay bool, script cursortest.Script) string {
		opts := cursor.Options{Transport: cursortest.FastTimings()}
		if relay {
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
			opts.Relay = r
		}
		srv := cursor.New(cursortest.NewScriptedRunHandler(script), opts, zap.NewNop())
		mux := http.NewServeMux()
		for p, h := range srv.Routes() {
			mux.Handle(p, h)
		}
		ts := httptest.NewServer(mux)
		b.Cleanup(ts.Close)
		b.Cleanup(func() { _ = srv.Close(ctx) })
		return ts.URL
	}
	roundTrips := func(n int) cursortest.Script {
		return func(ctx context.Context, turn *transport.Turn) error {
			for i := range n {
				if _, _, err := cursortest.SetBlob(ctx, turn, fmt.Appendf(nil, "blob %d", i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, c := range []struct {
		name         string
		relay, other bool
	}{
		{"one process", false, false},
		{"replicas, append on the holder", true, false},
		{"replicas, append forwarded", true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			holder := serve(b, c.relay, roundTrips(b.N))
			appends := holder
			if c.other {
				appends = serve(b, c.relay, roundTrips(b.N))
			}
			hc := &http.Client{Transport: &http.Transport{}}
			client := cursortest.NewClient(holder, hc, fmt.Sprintf("bench-%s-%d", b.Name(), b.N))
			client.AppendTo(appends, hc)
			s, err := client.Subscribe(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ResetTimer()
			if err := client.Send(ctx, cursortest.RunRequest("conv-bench", "byok-model", "hi")); err != nil {
				b.Fatal(err)
			}
			<-s.Done()
			b.StopTimer()
			if e := s.EndError(); e != nil {
				b.Fatal(e)
			}
		})
	}
}
