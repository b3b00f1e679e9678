package auth_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/sqlite"
	"keygate/domain/access"
	"keygate/ports"
)

var _ = Describe("Gate in header mode, recording groups", func() {
	var (
		g       *auth.Gate
		members ports.MembershipStore
	)
	BeforeEach(func() {
		var err error
		g, err = auth.New(context.Background(), auth.Config{
			Mode: auth.ModeHeader, UserHeader: "X-Auth-User", GroupsHeader: "X-Auth-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
			Roles:          access.RoleMap{MemberGroups: []string{"engineering"}},
		}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		members = sqlite.NewStore(db).Memberships()
		g.RecordGroupsWith(members)
	})
	groupsOf := func(user string) []string {
		GinkgoHelper()
		groups, _, err := members.Groups(context.Background(), user)
		Expect(err).NotTo(HaveOccurred())
		return groups
	}

	It("records what the trusted proxy asserts, also for a user the role map refuses", func() {
		rec := serve(g, "10.1.2.3:4000", "keygate.corp", map[string]string{"X-Auth-User": "ada", "X-Auth-Groups": "engineering, ops"})
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(groupsOf("ada")).To(Equal([]string{"engineering", "ops"}))
		rec = serve(g, "10.1.2.3:4000", "keygate.corp", map[string]string{"X-Auth-User": "ada", "X-Auth-Groups": "contractors"})
		Expect(rec.Code).To(Equal(http.StatusForbidden))
		Expect(groupsOf("ada")).To(Equal([]string{"contractors"}))
	})

	It("records nothing for a peer it does not trust", func() {
		serve(g, "192.0.2.1:4000", "keygate.corp", map[string]string{"X-Auth-User": "eve", "X-Auth-Groups": "engineering"})
		_, _, err := members.Groups(context.Background(), "eve")
		Expect(err).To(MatchError(ports.ErrNotFound))
	})

	It("bounds what it records: an oversized group is dropped, never cut to a configured name", func() {
		huge := strings.Repeat("x", 300)
		serve(g, "10.1.2.3:4000", "keygate.corp", map[string]string{"X-Auth-User": "ada", "X-Auth-Groups": "engineering," + huge})
		Expect(groupsOf("ada")).To(Equal([]string{"engineering"}))
	})
})
