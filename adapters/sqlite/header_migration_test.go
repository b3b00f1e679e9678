package sqlite_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
)

var _ = Describe("Upgrading providers whose custom headers an earlier Keygate kept in clear", func() {
	It("adds a column for the sealed headers and keeps the clear ones for Keygate to seal at start; a downgrade drops the column", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(db.Close()).To(Succeed())

		By("going back to the schema before sealed headers and storing a provider as it did")
		raw := rawSchemaAt(ctx, db.Path(), 140)
		at := time.Now().UnixMilli()
		_, err = raw.ExecContext(ctx, `INSERT INTO providers (id, name, provider_kind, base_url, use_full_url, custom_headers,
			region, key_strategy, cool_down_ms, created_at, updated_at)
			VALUES ('p-1', 'gw', 'openai_chat', 'https://gw.example/v1', FALSE, '{"CF-Access-Client-Secret":"cf-secret-0123"}',
			'', 'round_robin', 0, ?, ?)`, at, at)
		Expect(err).NotTo(HaveOccurred())
		Expect(raw.Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		got, err := sqlite.NewStore(db).Providers().Provider(ctx, "p-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.ClearHeaders).To(MatchJSON(`{"CF-Access-Client-Secret":"cf-secret-0123"}`), "kept for the start-up sealing")
		Expect(got.SealedHeaders).To(BeNil())
		Expect(db.Close()).To(Succeed())

		By("going back down")
		raw = rawSchemaAt(ctx, db.Path(), 140)
		DeferCleanup(raw.Close)
		var n int
		Expect(raw.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('providers') WHERE name = 'sealed_headers'`).Scan(&n)).To(Succeed())
		Expect(n).To(BeZero())
	})
})
