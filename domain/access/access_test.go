package access_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/access"
	"keygate/domain/identity"
)

var (
	ada   = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	admin = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
)

var _ = DescribeTable("Principal.CanSee",
	func(p access.Principal, owner string, allowed bool) {
		Expect(p.CanSee(owner)).To(Equal(allowed))
	},
	Entry("a member sees their own objects", ada, "ada", true),
	Entry("a member never sees another user's objects", ada, "bob", false),
	Entry("an administrator sees every user's objects", admin, "bob", true),
	Entry("a principal without a user id sees nothing that has no owner", access.Principal{Role: access.Member}, "", false),
)

var _ = DescribeTable("RoleMap.RoleFor",
	func(m access.RoleMap, groups []string, want access.Role, denied bool) {
		role, err := m.RoleFor(groups)
		if denied {
			Expect(err).To(MatchError(access.ErrDenied))
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(role).To(Equal(want))
	},
	Entry("an admin group makes an administrator", access.RoleMap{AdminGroups: []string{"ops"}}, []string{"dev", "ops"}, access.Admin, false),
	Entry("without member groups every signed-in user is a member", access.RoleMap{AdminGroups: []string{"ops"}}, nil, access.Member, false),
	Entry("a member group admits a member", access.RoleMap{MemberGroups: []string{"dev"}}, []string{"dev"}, access.Member, false),
	Entry("a user in no listed group is refused when member groups are set", access.RoleMap{MemberGroups: []string{"dev"}}, []string{"sales"}, access.Role(""), true),
	Entry("group names compare exactly", access.RoleMap{AdminGroups: []string{"ops"}, MemberGroups: []string{"dev"}}, []string{"OPS"}, access.Role(""), true),
)

var _ = Describe("access context", func() {
	It("carries the principal and its identity for code that only scopes by user", func() {
		ctx := access.NewContext(context.Background(), admin)
		p, ok := access.FromContext(ctx)
		Expect(ok).To(BeTrue())
		Expect(p).To(Equal(admin))
		id, ok := identity.FromContext(ctx)
		Expect(ok).To(BeTrue())
		Expect(id.UserID).To(Equal("root"))
	})

	It("reports an unauthenticated context", func() {
		_, ok := access.FromContext(context.Background())
		Expect(ok).To(BeFalse())
	})
})
