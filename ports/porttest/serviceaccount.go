package porttest

import (
	"context"
	"crypto/rand"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

// DescribeServiceAccountStore declares the contract suite of
// ports.ServiceAccountStore. open returns a store that may already hold
// other specs' accounts.
func DescribeServiceAccountStore(name string, open func() ports.ServiceAccountStore) bool {
	return Describe(name+" ServiceAccountStore", func() {
		var (
			st  ports.ServiceAccountStore
			ctx context.Context
			now time.Time
		)
		BeforeEach(func() {
			st, ctx = open(), context.Background()
			now = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
		})
		account := func(role access.Role) (ports.ServiceAccount, string) {
			k, text, err := token.New(rand.Reader, identity.Identity{UserID: "sa"}, uniq("deploy"), now, 24*time.Hour)
			Expect(err).NotTo(HaveOccurred())
			return ports.ServiceAccount{Key: k, Role: role, CreatedBy: "root"}, text
		}

		It("stores an account and finds it by its key's hash, naming it by its id", func() {
			a, text := account(access.ReadOnly)
			Expect(st.CreateServiceAccount(ctx, a)).To(Succeed())
			got, err := st.ServiceAccountByHash(ctx, token.HashOf(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Role).To(Equal(access.ReadOnly))
			Expect(got.CreatedBy).To(Equal("root"))
			Expect(got.Key.ID).To(Equal(a.Key.ID))
			Expect(got.Key.Owner).To(Equal(identity.Identity{UserID: "sa:" + a.Key.ID, Name: a.Key.Name}))
			Expect(got.Key.Hash).To(Equal(a.Key.Hash))
			Expect(got.Key.ExpiresAt).To(BeTemporally("==", now.Add(24*time.Hour)))
			Expect(got.Key.RevokedAt.IsZero()).To(BeTrue())
			_, err = st.ServiceAccountByHash(ctx, token.HashOf(text+"x"))
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(st.CreateServiceAccount(ctx, a)).To(MatchError(ports.ErrConflict))
		})

		It("lists accounts newest first, revokes once and records uses forward only", func() {
			older, _ := account(access.Admin)
			newer, _ := account(access.ReadOnly)
			newer.Key.CreatedAt = now.Add(time.Minute)
			Expect(st.CreateServiceAccount(ctx, older)).To(Succeed())
			Expect(st.CreateServiceAccount(ctx, newer)).To(Succeed())
			list, err := st.ServiceAccounts(ctx)
			Expect(err).NotTo(HaveOccurred())
			var ids []string
			for _, a := range list {
				ids = append(ids, a.Key.ID)
			}
			Expect(ids).To(ContainElements(older.Key.ID, newer.Key.ID))
			Expect(indexOf(ids, newer.Key.ID)).To(BeNumerically("<", indexOf(ids, older.Key.ID)))

			Expect(st.RevokeServiceAccount(ctx, older.Key.ID, now.Add(time.Hour))).To(Succeed())
			Expect(st.RevokeServiceAccount(ctx, older.Key.ID, now.Add(2*time.Hour))).To(Succeed())
			Expect(st.TouchServiceAccount(ctx, older.Key.ID, now.Add(3*time.Hour))).To(Succeed())
			Expect(st.TouchServiceAccount(ctx, older.Key.ID, now.Add(time.Hour))).To(Succeed())
			got, err := st.ServiceAccountByHash(ctx, older.Key.Hash)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Key.RevokedAt).To(BeTemporally("==", now.Add(time.Hour)), "the first revocation stays")
			Expect(got.Key.LastUsedAt).To(BeTemporally("==", now.Add(3*time.Hour)))
			Expect(st.RevokeServiceAccount(ctx, "tok_missing", now)).To(MatchError(ports.ErrNotFound))
			Expect(st.TouchServiceAccount(ctx, "tok_missing", now)).To(MatchError(ports.ErrNotFound))
		})

		It("returns the context's error when cancelled", func() {
			a, _ := account(access.Admin)
			Expect(st.CreateServiceAccount(cancelled(ctx), a)).To(MatchError(context.Canceled))
			_, err := st.ServiceAccounts(cancelled(ctx))
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
