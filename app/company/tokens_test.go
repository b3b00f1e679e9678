package company_test

import (
	"context"
	"crypto/rand"
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

var _ = Describe("Tokens", func() {
	var (
		ctx    context.Context
		store  ports.TokenStore
		clock  *runtest.Clock
		tokens *company.Tokens
		ada    = access.Principal{Identity: identity.Identity{UserID: "ada", Name: "ada@example.com"}, Role: access.Member}
		bob    = access.Principal{Identity: identity.Identity{UserID: "bob"}, Role: access.Member}
		admin  = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	)
	BeforeEach(func() {
		ctx, clock = context.Background(), runtest.NewClock()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		store = sqlite.NewStore(db).Tokens()
		tokens = company.NewTokens(store, clock, rand.Reader)
	})

	Describe("Create", func() {
		It("shows the text once and stores only its hash", func() {
			c, err := tokens.Create(ctx, ada, "work laptop", 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Text).To(HavePrefix(token.Prefix))
			list, err := tokens.List(ctx, ada, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(list).To(ConsistOf(HaveField("Hash", token.HashOf(c.Text))))
			Expect(list[0].Hint).NotTo(ContainSubstring(c.Text[len(token.Prefix)+4:]))
		})
	})

	Describe("Authenticate", func() {
		var text string
		BeforeEach(func() {
			c, err := tokens.Create(ctx, ada, "laptop", time.Hour)
			Expect(err).NotTo(HaveOccurred())
			text = c.Text
		})

		It("returns the owner's identity", func() {
			Expect(tokens.Authenticate(ctx, text)).To(Equal(ada.Identity))
		})

		DescribeTable("refuses with ErrNotAuthorized",
			func(prepare func() string) {
				_, err := tokens.Authenticate(ctx, prepare())
				Expect(err).To(MatchError(ports.ErrNotAuthorized))
			},
			Entry("an empty token", func() string { return "" }),
			Entry("a string that is not a token", func() string { return "Bearer hunter2" }),
			Entry("a well-formed token nobody holds", func() string {
				_, other, _ := token.New(rand.Reader, ada.Identity, "x", clock.Now(), 0)
				return other
			}),
			Entry("a revoked token", func() string {
				list, _ := tokens.List(ctx, ada, false)
				_, err := tokens.Revoke(ctx, ada, list[0].ID)
				Expect(err).NotTo(HaveOccurred())
				return text
			}),
			Entry("an expired token", func() string { clock.Advance(time.Hour); return text }),
		)

		It("records the first use and then at most one use a minute", func() {
			_, err := tokens.Authenticate(ctx, text)
			Expect(err).NotTo(HaveOccurred())
			first := clock.Now()
			clock.Advance(30 * time.Second)
			_, _ = tokens.Authenticate(ctx, text)
			list, _ := tokens.List(ctx, ada, false)
			Expect(list[0].LastUsedAt).To(BeTemporally("==", first))
			clock.Advance(30 * time.Second)
			_, _ = tokens.Authenticate(ctx, text)
			list, _ = tokens.List(ctx, ada, false)
			Expect(list[0].LastUsedAt).To(BeTemporally("==", clock.Now()))
		})
	})

	Describe("List and Revoke across users", func() {
		var adas company.Created
		BeforeEach(func() {
			var err error
			adas, err = tokens.Create(ctx, ada, "ada's", 0)
			Expect(err).NotTo(HaveOccurred())
			_, err = tokens.Create(ctx, bob, "bob's", 0)
			Expect(err).NotTo(HaveOccurred())
		})

		It("shows a member only their own tokens", func() {
			Expect(tokens.List(ctx, bob, false)).To(ConsistOf(HaveField("Name", "bob's")))
		})

		It("refuses a member the list of every user's tokens", func() {
			_, err := tokens.List(ctx, bob, true)
			Expect(err).To(MatchError(access.ErrDenied))
		})

		It("shows an administrator every user's tokens", func() {
			Expect(tokens.List(ctx, admin, true)).To(HaveLen(2))
		})

		It("answers another member's revocation of ada's token with ErrNotFound and leaves it usable", func() {
			_, err := tokens.Revoke(ctx, bob, adas.Token.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(tokens.Authenticate(ctx, adas.Text)).To(Equal(ada.Identity))
		})

		It("lets an administrator revoke any user's token", func() {
			_, err := tokens.Revoke(ctx, admin, adas.Token.ID)
			Expect(err).NotTo(HaveOccurred())
			_, err = tokens.Authenticate(ctx, adas.Text)
			Expect(err).To(MatchError(ports.ErrNotAuthorized))
		})
	})
})
