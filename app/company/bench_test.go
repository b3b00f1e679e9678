package company_test

import (
	"context"
	"crypto/rand"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/conversation"
	"keygate/domain/identity"
	"keygate/ports"
)

// BenchmarkAuthenticate is one proxy CONNECT's token check on SQLite
// (hash lookup; the last-use write happens at most once a minute, so the
// steady state is read-only).
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, b.TempDir(), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tokens := company.NewTokens(sqlite.NewStore(db).Tokens(), runtest.NewClock(), rand.Reader)
	p := access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	_, text, err := tokens.Create(ctx, p, "bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := tokens.Authenticate(ctx, text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCursorStoresBeginProviderCall is a model call's run-store write
// on SQLite, raw and through Tenancy.CursorStores (which first reads the
// run and its conversation's owner).
func BenchmarkCursorStoresBeginProviderCall(b *testing.B) {
	ctx := identity.NewContext(context.Background(), identity.Identity{UserID: "ada"})
	db, err := sqlite.Open(ctx, b.TempDir(), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := sqlite.NewStore(db)
	cs := company.NewTenancy(st.Owners()).CursorStores(st.Stores())
	if _, err := cs.Conversations.Open(ctx, "conv-bench"); err != nil {
		b.Fatal(err)
	}
	run := conversation.RunID("req-bench", 1)
	if _, err := cs.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: "conv-bench", CursorRequestID: "req-bench", Kind: "root"}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		runs ports.RunStore
	}{{"raw", st.Stores().Runs}, {"scoped", cs.Runs}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.runs.BeginProviderCall(ctx, run); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
