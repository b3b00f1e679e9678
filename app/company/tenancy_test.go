package company_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

var _ = Describe("Tenancy", func() {
	var (
		ctx     context.Context
		tenancy *company.Tenancy
		ada     = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
		bob     = access.Principal{Identity: identity.Identity{UserID: "bob"}, Role: access.Member}
		admin   = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
		as      = func(p access.Principal) context.Context { return access.NewContext(ctx, p) }
	)
	BeforeEach(func() {
		ctx = context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		tenancy = company.NewTenancy(sqlite.NewStore(db).Owners())
		Expect(tenancy.Claim(as(ada), access.KindConversation, "conv-ada")).To(Succeed())
		Expect(tenancy.Claim(as(bob), access.KindConversation, "conv-bob")).To(Succeed())
	})

	DescribeTable("Authorize",
		func(p access.Principal, id string, allowed bool) {
			err := tenancy.Authorize(ctx, p, access.KindConversation, id)
			if allowed {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(MatchError(ports.ErrNotFound))
			}
		},
		Entry("a member reaches their own conversation", ada, "conv-ada", true),
		Entry("a member is told another member's conversation does not exist", ada, "conv-bob", false),
		Entry("a member is told the same for a conversation that really does not exist", ada, "conv-none", false),
		Entry("an administrator reaches every user's conversation", admin, "conv-bob", true),
	)

	It("filters a list page down to the member's own objects, in order", func() {
		Expect(tenancy.Visible(ctx, ada, access.KindConversation, []string{"conv-bob", "conv-ada", "conv-none"})).To(Equal([]string{"conv-ada"}))
		Expect(tenancy.Visible(ctx, admin, access.KindConversation, []string{"conv-bob", "conv-ada"})).To(Equal([]string{"conv-bob", "conv-ada"}))
	})

	It("refuses to let a second user claim an object", func() {
		Expect(tenancy.Claim(as(bob), access.KindConversation, "conv-ada")).To(MatchError(access.ErrDenied))
	})

	It("refuses a claim without a caller", func() {
		Expect(tenancy.Claim(ctx, access.KindRun, "run-1")).To(MatchError(access.ErrDenied))
	})
})
