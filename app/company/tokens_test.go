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
		log    ports.AuditLog
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
		st := sqlite.NewStore(db)
		store, log = st.Tokens(), st.Audit()
		tokens = company.NewTokens(store, clock, rand.Reader)
		tokens.AuditWith(company.NewAuditor(log, clock))
	})

	Describe("Create", func() {
		It("shows the text once and stores only its hash", func() {
			_, text, err := tokens.Create(ctx, ada, "work laptop", 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(text).To(HavePrefix(token.Prefix))
			list, err := tokens.List(ctx, ada, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(list).To(ConsistOf(HaveField("Hash", token.HashOf(text))))
			Expect(list[0].Hint).NotTo(ContainSubstring(text[len(token.Prefix)+4:]))
		})
	})

	Describe("Authenticate", func() {
		var text string
		BeforeEach(func() {
			var err error
			_, text, err = tokens.Create(ctx, ada, "laptop", 1)
			Expect(err).NotTo(HaveOccurred())
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
			Entry("an expired token", func() string { clock.Advance(24 * time.Hour); return text }),
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
		var (
			adas     token.Token
			adasText string
		)
		BeforeEach(func() {
			var err error
			adas, adasText, err = tokens.Create(ctx, ada, "ada's", 0)
			Expect(err).NotTo(HaveOccurred())
			_, _, err = tokens.Create(ctx, bob, "bob's", 0)
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
			_, err := tokens.Revoke(ctx, bob, adas.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(tokens.Authenticate(ctx, adasText)).To(Equal(ada.Identity))
		})

		It("lets an administrator revoke any user's token, and audits it", func() {
			_, err := tokens.Revoke(ctx, admin, adas.ID)
			Expect(err).NotTo(HaveOccurred())
			_, err = tokens.Authenticate(ctx, adasText)
			Expect(err).To(MatchError(ports.ErrNotAuthorized))
			entries, err := log.AuditEntries(ctx, ports.AuditQuery{})
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(ContainElement(And(HaveField("Action", "token.revoke"), HaveField("Target", adas.ID),
				HaveField("Actor", admin.Identity))))
		})

		It("audits every token's creation and a member revoking their own token, never with its hash", func() {
			_, err := tokens.Revoke(ctx, ada, adas.ID)
			Expect(err).NotTo(HaveOccurred())
			entries, err := log.AuditEntries(ctx, ports.AuditQuery{})
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(ContainElement(And(HaveField("Action", "token.create"), HaveField("Target", adas.ID),
				HaveField("Actor", ada.Identity))))
			Expect(entries).To(ContainElement(And(HaveField("Action", "token.revoke"), HaveField("Target", adas.ID),
				HaveField("Actor", ada.Identity))))
			for _, e := range entries {
				Expect(string(e.After) + string(e.Before)).NotTo(ContainSubstring(adasText))
			}
		})
	})
})
