package company_test

import (
	"context"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

// countedOwners counts the owner reads that reach the store.
type countedOwners struct {
	ports.OwnerStore
	reads atomic.Int64
}

func (c *countedOwners) Owner(ctx context.Context, kind access.Kind, id string) (string, error) {
	c.reads.Add(1)
	return c.OwnerStore.Owner(ctx, kind, id)
}

var _ = Describe("Tenancy remembering owners", func() {
	var (
		ctx     context.Context
		owners  *countedOwners
		clock   *runtest.Clock
		convs   ports.ConversationStore
		as      = func(user string) context.Context { return identity.NewContext(ctx, identity.Identity{UserID: user}) }
		headsOf = func(c context.Context, id string) error { _, err := convs.Head(c, id); return err }
	)
	BeforeEach(func() {
		ctx = context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db)
		owners = &countedOwners{OwnerStore: st.Owners()}
		clock = runtest.NewClock()
		tenancy := company.NewTenancy(owners).RememberOwners(clock, 5*time.Second)
		convs = tenancy.CursorStores(st.Stores()).Conversations
		_, err = convs.Open(as("ada"), "conv-ada")
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads a conversation's owner once while it is fresh, and again after", func() {
		before := owners.reads.Load()
		for range 3 {
			Expect(headsOf(as("ada"), "conv-ada")).To(Succeed())
		}
		Expect(owners.reads.Load()).To(Equal(before), "the claim's owner was remembered")
		clock.Advance(5 * time.Second)
		Expect(headsOf(as("ada"), "conv-ada")).To(Succeed())
		Expect(owners.reads.Load()).To(Equal(before + 1))
	})

	It("still refuses another user, whatever it remembers", func() {
		Expect(headsOf(as("bob"), "conv-ada")).To(MatchError(access.ErrDenied))
		Expect(headsOf(as("bob"), "conv-ada")).To(MatchError(access.ErrDenied))
		_, err := convs.Open(as("bob"), "conv-ada")
		Expect(err).To(MatchError(access.ErrDenied))
	})
})
