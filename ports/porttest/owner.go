package porttest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/access"
	"keygate/ports"
)

// DescribeOwnerStore declares the contract suite of ports.OwnerStore.
func DescribeOwnerStore(name string, open func() ports.OwnerStore) bool {
	return Describe(name+" OwnerStore", func() {
		var (
			st       ports.OwnerStore
			ctx      context.Context
			ada, bob string
		)
		BeforeEach(func() { st, ctx, ada, bob = open(), context.Background(), uniq("ada"), uniq("bob") })

		It("records an owner once and keeps it", func() {
			id := uniq("conv")
			Expect(st.SetOwner(ctx, access.KindConversation, id, ada)).To(Succeed())
			Expect(st.SetOwner(ctx, access.KindConversation, id, ada)).To(Succeed())
			Expect(st.Owner(ctx, access.KindConversation, id)).To(Equal(ada))
		})

		It("refuses to hand an object to another user with ErrConflict", func() {
			id := uniq("conv")
			Expect(st.SetOwner(ctx, access.KindConversation, id, ada)).To(Succeed())
			Expect(st.SetOwner(ctx, access.KindConversation, id, bob)).To(MatchError(ports.ErrConflict))
			Expect(st.Owner(ctx, access.KindConversation, id)).To(Equal(ada))
		})

		It("keeps kinds apart and answers ErrNotFound for an unowned object", func() {
			id := uniq("obj")
			Expect(st.SetOwner(ctx, access.KindRun, id, ada)).To(Succeed())
			_, err := st.Owner(ctx, access.KindCall, id)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("filters a list of ids down to the user's own", func() {
			a1, a2, b1, none := uniq("conv"), uniq("conv"), uniq("conv"), uniq("conv")
			for id, u := range map[string]string{a1: ada, a2: ada, b1: bob} {
				Expect(st.SetOwner(ctx, access.KindConversation, id, u)).To(Succeed())
			}
			Expect(st.OwnedAmong(ctx, access.KindConversation, ada, []string{a1, b1, a2, none})).To(ConsistOf(a1, a2))
			Expect(st.OwnedAmong(ctx, access.KindConversation, ada, nil)).To(BeEmpty())
		})
	})
}
