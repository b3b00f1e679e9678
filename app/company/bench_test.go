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
	"keygate/domain/identity"
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
