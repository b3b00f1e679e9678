package postgres_test

import (
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
)

var _ = Describe("Upgrading providers whose custom headers an earlier Keygate kept in clear", func() {
	It("adds a column for the sealed headers and keeps the clear ones for Keygate to seal at start; a downgrade drops the column", func(ctx SpecContext) {
		fresh, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fresh.Close)
		db, err := postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		db.Close()

		By("going back to the schema before sealed headers and storing a provider as it did")
		raw := rawSchemaAt(ctx, fresh.DSN, 140)
		DeferCleanup(raw.Close)
		at := time.Now().UTC()
		_, err = raw.ExecContext(ctx, `INSERT INTO providers (id, name, provider_kind, base_url, use_full_url, custom_headers,
			region, key_strategy, cool_down_ms, created_at, updated_at)
			VALUES ('p-1', 'gw', 'openai_chat', 'https://gw.example/v1', FALSE, '{"CF-Access-Client-Secret":"cf-secret-0123"}',
			'', 'round_robin', 0, $1, $1)`, at)
		Expect(err).NotTo(HaveOccurred())

		By("opening it with this Keygate")
		db, err = postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		got, err := postgres.NewStore(db).Providers().Provider(ctx, "p-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.ClearHeaders).To(MatchJSON(`{"CF-Access-Client-Secret":"cf-secret-0123"}`), "kept for the start-up sealing")
		Expect(got.SealedHeaders).To(BeNil())
		db.Close()

		By("going back down")
		schemaDown(ctx, raw, 140)
		var n int
		Expect(raw.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
			WHERE table_name = 'providers' AND column_name = 'sealed_headers'`).Scan(&n)).To(Succeed())
		Expect(n).To(BeZero())
	})
})
