package company_test

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

var _ = Describe("ServiceAccounts", func() {
	var (
		ctx      context.Context
		clock    *runtest.Clock
		accounts *company.ServiceAccounts
		admin    = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
		member   = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	)
	BeforeEach(func() {
		ctx, clock = context.Background(), runtest.NewClock()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db)
		accounts = company.NewServiceAccounts(st.ServiceAccounts(), clock, rand.Reader, company.NewAuditor(st.Audit(), clock))
	})

	It("mints a key an administrator alone may create, list and revoke, in the roles admin and read-only", func() {
		_, _, err := accounts.Create(ctx, member, "mine", access.Admin, 0)
		Expect(err).To(MatchError(access.ErrDenied))
		_, _, err = accounts.Create(ctx, admin, "odd", access.Member, 0)
		Expect(err).To(MatchError(company.ErrRole))
		_, err = accounts.List(ctx, member)
		Expect(err).To(MatchError(access.ErrDenied))

		a, key, err := accounts.Create(ctx, admin, "monitoring", access.ReadOnly, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(key).To(HavePrefix(token.Prefix))
		Expect(a.Key.ExpiresAt).To(BeTemporally("==", a.Key.CreatedAt.Add(90*24*time.Hour)), "90 days unless asked")
		p, err := accounts.Authenticate(ctx, key)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Role).To(Equal(access.ReadOnly))
		Expect(p.UserID).To(Equal("sa:" + a.Key.ID))

		_, err = accounts.Revoke(ctx, member, a.Key.ID)
		Expect(err).To(MatchError(access.ErrDenied))
		_, err = accounts.Revoke(ctx, admin, a.Key.ID)
		Expect(err).NotTo(HaveOccurred())
		_, err = accounts.Authenticate(ctx, key)
		Expect(err).To(MatchError(ports.ErrNotAuthorized))
	})

	It("bounds a key's life to a year and refuses it once expired", func() {
		_, _, err := accounts.Create(ctx, admin, "forever", access.Admin, 366)
		var lerr *token.LifetimeError
		Expect(errors.As(err, &lerr)).To(BeTrue(), "%v", err)
		_, key, err := accounts.Create(ctx, admin, "deploy", access.Admin, 1)
		Expect(err).NotTo(HaveOccurred())
		_, err = accounts.Authenticate(ctx, key)
		Expect(err).NotTo(HaveOccurred())
		clock.Advance(25 * time.Hour)
		_, err = accounts.Authenticate(ctx, key)
		Expect(err).To(MatchError(ports.ErrNotAuthorized))
		_, err = accounts.Authenticate(ctx, "kg_not-a-key")
		Expect(err).To(MatchError(ports.ErrNotAuthorized))
	})
})
