package identity_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/identity"
)

var _ = Describe("identity context", func() {
	It("carries the identity a proxy put on the request to the handlers below it", func() {
		ctx := identity.NewContext(context.Background(), identity.Identity{UserID: "u-1", Name: "ada@example.com"})
		id, ok := identity.FromContext(ctx)
		Expect(ok).To(BeTrue())
		Expect(id.UserID).To(Equal("u-1"))
	})

	It("reports an unauthenticated context instead of inventing a user", func() {
		_, ok := identity.FromContext(context.Background())
		Expect(ok).To(BeFalse())
	})
})

var _ = DescribeTable("Identity.Validate",
	func(id identity.Identity, valid bool) {
		if valid {
			Expect(id.Validate()).To(Succeed())
		} else {
			Expect(id.Validate()).To(MatchError(identity.ErrNoUser))
		}
	},
	Entry("the local user of a laptop install is valid", identity.Local, true),
	Entry("a user id alone is enough", identity.Identity{UserID: "u-2"}, true),
	Entry("a display name without a user id scopes nothing", identity.Identity{Name: "ada"}, false),
)
