package porttest

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

// DescribeTokenStore declares the contract suite of ports.TokenStore. Call
// it at the top level of the adapter's spec file; open returns a store
// that may already hold other specs' tokens (ids and users are unique).
func DescribeTokenStore(name string, open func() ports.TokenStore) bool {
	return Describe(name+" TokenStore", func() {
		var (
			ts  ports.TokenStore
			ctx context.Context
			ada identity.Identity
			now time.Time
		)
		BeforeEach(func() {
			ts, ctx = open(), context.Background()
			ada = identity.Identity{UserID: uniq("user"), Name: "ada@example.com"}
			now = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
		})
		mint := func(owner identity.Identity, at time.Time) (token.Token, string) {
			t, text, err := token.New(rand.Reader, owner, "laptop", at, 0)
			Expect(err).NotTo(HaveOccurred())
			return t, text
		}

		It("finds a stored token by the hash of its text, with every field intact", func() {
			t, text := mint(ada, now)
			t.ExpiresAt = now.Add(24 * time.Hour)
			Expect(ts.CreateToken(ctx, t, nil)).To(Succeed())
			got, err := ts.TokenByHash(ctx, token.HashOf(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(got.ID).To(Equal(t.ID))
			Expect(got.Owner).To(Equal(ada))
			Expect(got.Hash).To(Equal(t.Hash))
			Expect(got.Hint).To(Equal(t.Hint))
			Expect(got.CreatedAt).To(BeTemporally("==", now))
			Expect(got.ExpiresAt).To(BeTemporally("==", t.ExpiresAt))
			Expect(got.LastUsedAt.IsZero()).To(BeTrue())
			Expect(got.RevokedAt.IsZero()).To(BeTrue())
		})

		It("answers ErrNotFound for a hash nobody holds", func() {
			_, err := ts.TokenByHash(ctx, token.HashOf("kg_unknown"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("refuses a second token with the same id or hash with ErrConflict", func() {
			t, _ := mint(ada, now)
			Expect(ts.CreateToken(ctx, t, nil)).To(Succeed())
			again := t
			again.ID = uniq("tok")
			Expect(ts.CreateToken(ctx, again, nil)).To(MatchError(ports.ErrConflict))
		})

		It("lists a user's tokens newest first and every user's with an empty user id", func() {
			older, _ := mint(ada, now)
			newer, _ := mint(ada, now.Add(time.Minute))
			bob := identity.Identity{UserID: uniq("user")}
			other, _ := mint(bob, now)
			for _, t := range []token.Token{older, newer, other} {
				Expect(ts.CreateToken(ctx, t, nil)).To(Succeed())
			}
			mine, err := ts.Tokens(ctx, ada.UserID)
			Expect(err).NotTo(HaveOccurred())
			Expect(mine).To(HaveLen(2))
			Expect(mine[0].ID).To(Equal(newer.ID))
			Expect(mine[1].ID).To(Equal(older.ID))
			all, err := ts.Tokens(ctx, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(all).To(ContainElements(
				HaveField("ID", older.ID), HaveField("ID", newer.ID), HaveField("ID", other.ID)))
		})

		It("keeps the first revocation time and still finds a revoked token", func() {
			t, text := mint(ada, now)
			Expect(ts.CreateToken(ctx, t, nil)).To(Succeed())
			Expect(ts.RevokeToken(ctx, t.ID, now.Add(time.Hour))).To(Succeed())
			Expect(ts.RevokeToken(ctx, t.ID, now.Add(2*time.Hour))).To(Succeed())
			got, err := ts.TokenByHash(ctx, token.HashOf(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(got.RevokedAt).To(BeTemporally("==", now.Add(time.Hour)))
			Expect(got.Usable(now.Add(3 * time.Hour))).To(MatchError(token.ErrRevoked))
		})

		It("records the latest use and ignores an earlier one", func() {
			t, text := mint(ada, now)
			Expect(ts.CreateToken(ctx, t, nil)).To(Succeed())
			Expect(ts.TouchToken(ctx, t.ID, now.Add(5*time.Minute))).To(Succeed())
			Expect(ts.TouchToken(ctx, t.ID, now.Add(time.Minute))).To(Succeed())
			got, _ := ts.TokenByHash(ctx, token.HashOf(text))
			Expect(got.LastUsedAt).To(BeTemporally("==", now.Add(5*time.Minute)))
		})

		It("answers ErrNotFound when revoking or touching an unknown id", func() {
			Expect(ts.RevokeToken(ctx, uniq("tok"), now)).To(MatchError(ports.ErrNotFound))
			Expect(ts.TouchToken(ctx, uniq("tok"), now)).To(MatchError(ports.ErrNotFound))
		})

		It("stores a token only when admit, shown the owner's stored tokens, allows it", func() {
			first, _ := mint(ada, now)
			Expect(ts.CreateToken(ctx, first, nil)).To(Succeed())
			bob := identity.Identity{UserID: uniq("user")}
			other, _ := mint(bob, now)
			Expect(ts.CreateToken(ctx, other, nil)).To(Succeed())
			full := errors.New("full")
			var seen []string
			second, text := mint(ada, now)
			err := ts.CreateToken(ctx, second, func(held []token.Token) error {
				for _, t := range held {
					seen = append(seen, t.ID)
				}
				return full
			})
			Expect(err).To(MatchError(full))
			Expect(seen).To(ConsistOf(first.ID))
			_, err = ts.TokenByHash(ctx, token.HashOf(text))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("serializes admitted creations of one owner, so a bound on them holds under a race", func() {
			const racers, bound = 8, 3
			admit := func(held []token.Token) error {
				if len(held) >= bound {
					return errors.New("full")
				}
				return nil
			}
			var wg sync.WaitGroup
			for range racers {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					t, _ := mint(ada, now)
					_ = ts.CreateToken(ctx, t, admit)
				}()
			}
			wg.Wait()
			Expect(ts.Tokens(ctx, ada.UserID)).To(HaveLen(bound))
		})

		It("writes nothing on a cancelled context", func() {
			t, text := mint(ada, now)
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			Expect(ts.CreateToken(cancelled, t, nil)).To(MatchError(context.Canceled))
			_, err := ts.TokenByHash(ctx, token.HashOf(text))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
