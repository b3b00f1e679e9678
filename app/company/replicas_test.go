package company_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/ports"
)

var _ = Describe("Replicas agreeing on their secret key and CA", func() {
	var (
		ctx   context.Context
		store ports.FingerprintStore
	)
	BeforeEach(func() {
		ctx = context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		store = sqlite.NewStore(db).Fingerprints()
	})
	key := func(fp string, older ...string) company.Mark {
		return company.Mark{Name: company.KeyMark, Mine: fp, Older: older}
	}

	Describe("Agree", func() {
		It("records the first replica's fingerprint and accepts the same from every later one", func() {
			Expect(company.Agree(ctx, store, key("k1"))).To(Succeed())
			Expect(company.Agree(ctx, store, key("k1"))).To(Succeed())
			Expect(store.Fingerprint(ctx, company.KeyMark)).To(Equal("k1"))
		})

		It("refuses another fingerprint, naming both, and leaves the record alone", func() {
			Expect(company.Agree(ctx, store, key("aaaaaaaaaaaaaaaa1111"))).To(Succeed())
			err := company.Agree(ctx, store, key("bbbbbbbbbbbbbbbb2222"))
			Expect(err).To(MatchError(company.ErrMismatch))
			Expect(err.Error()).To(Equal("secret_key fingerprint bbbbbbbbbbbbbbbb is not aaaaaaaaaaaaaaaa, the one recorded in the database by this deployment's replicas"))
			Expect(store.Fingerprint(ctx, company.KeyMark)).To(Equal("aaaaaaaaaaaaaaaa1111"))
		})

		It("moves the record to a replica's new key when the recorded one is among its older keys, then refuses the old key alone", func() {
			Expect(company.Agree(ctx, store, key("old"))).To(Succeed())
			Expect(company.Agree(ctx, store, key("new", "old"))).To(Succeed(), "a rotation rolling out")
			Expect(store.Fingerprint(ctx, company.KeyMark)).To(Equal("new"))
			Expect(company.Agree(ctx, store, key("new", "old"))).To(Succeed())
			Expect(company.Agree(ctx, store, key("old"))).To(MatchError(company.ErrMismatch), "a replica that cannot open what the new key seals")
		})

		It("keeps each name apart", func() {
			Expect(company.Agree(ctx, store, key("k1"))).To(Succeed())
			Expect(company.Agree(ctx, store, company.Mark{Name: company.CAMark, Mine: "ca1"})).To(Succeed())
			Expect(company.Agree(ctx, store, company.Mark{Name: company.CAMark, Mine: "ca2"})).To(MatchError(company.ErrMismatch))
		})
	})

	Describe("Compare", func() {
		It("writes nothing: not found before any record, then nil for the recorded or an older fingerprint and a mismatch otherwise", func() {
			Expect(company.Compare(ctx, store, key("k1"))).To(MatchError(ports.ErrNotFound))
			_, err := store.Fingerprint(ctx, company.KeyMark)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(company.Agree(ctx, store, key("k1"))).To(Succeed())
			Expect(company.Compare(ctx, store, key("k1"))).To(Succeed())
			Expect(company.Compare(ctx, store, key("k2", "k1"))).To(Succeed())
			Expect(store.Fingerprint(ctx, company.KeyMark)).To(Equal("k1"), "compare moved nothing")
			Expect(company.Compare(ctx, store, key("k2"))).To(MatchError(company.ErrMismatch))
		})
	})

	Describe("Adopt", func() {
		It("replaces whatever was recorded and says what it replaced", func() {
			Expect(company.Adopt(ctx, store, company.KeyMark, "k1")).To(BeEmpty())
			Expect(company.Adopt(ctx, store, company.KeyMark, "k2")).To(Equal("k1"))
			Expect(company.Agree(ctx, store, key("k2"))).To(Succeed())
			Expect(company.Agree(ctx, store, key("k1"))).To(MatchError(company.ErrMismatch))
		})
	})

	DescribeTable("Shape.Check refuses a replicated company deployment whose key or CA each replica would generate",
		func(s company.Shape, want []error) {
			err := s.Check()
			if want == nil {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			for _, w := range want {
				Expect(err).To(MatchError(w))
			}
		},
		Entry("company on PostgreSQL, key and CA generated", company.Shape{Company: true, SharedStore: true},
			[]error{company.ErrGeneratedKey, company.ErrGeneratedCA}),
		Entry("company on PostgreSQL, CA generated", company.Shape{Company: true, SharedStore: true, KeyConfigured: true},
			[]error{company.ErrGeneratedCA}),
		Entry("company on PostgreSQL, both configured", company.Shape{Company: true, SharedStore: true, KeyConfigured: true, CAConfigured: true}, nil),
		Entry("company on PostgreSQL as the single replica", company.Shape{Company: true, SharedStore: true, SingleReplica: true}, nil),
		Entry("company on SQLite", company.Shape{Company: true}, nil),
		Entry("a laptop on PostgreSQL", company.Shape{SharedStore: true}, nil),
	)
})
