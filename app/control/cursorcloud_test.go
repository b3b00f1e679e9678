package control_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/cursorcloud"
	"keygate/domain/identity"
	"keygate/ports"
)

// cloudStore answers ListCloudUsage and remembers the query.
type cloudStore struct{ asked []ports.CloudUsageQuery }

func (s *cloudStore) AddCloudUsage(context.Context, []cursorcloud.DayUsage) error { return nil }

func (s *cloudStore) ListCloudUsage(_ context.Context, q ports.CloudUsageQuery) ([]cursorcloud.DayUsage, error) {
	s.asked = append(s.asked, q)
	return []cursorcloud.DayUsage{{Day: "2026-12-07", UserID: q.UserID}}, nil
}

var _ = Describe("CursorCloud (the console's Cursor cloud page)", func() {
	now := func() time.Time { return time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC) }
	served := func(p string) bool {
		return p == "/aiserver.v1.AiService/StreamCpp" || p == "/aiserver.v1.AiService/GetServerConfig"
	}

	It("limits a member to their own rows whatever they ask, and lets an administrator ask for anyone", func() {
		st := &cloudStore{}
		c := appcontrol.NewCursorCloud(st, cursorcloud.Metadata, served, now)
		member := access.NewContext(context.Background(), access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member})
		_, err := c.Get(member, appcontrol.CursorCloudQuery{UserID: "bob"})
		Expect(err).NotTo(HaveOccurred())
		admin := access.NewContext(context.Background(), access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin})
		_, err = c.Get(admin, appcontrol.CursorCloudQuery{UserID: "bob", Days: 500, Limit: 1_000_000})
		Expect(err).NotTo(HaveOccurred())
		Expect(st.asked).To(Equal([]ports.CloudUsageQuery{
			{UserID: "ada", Since: "2026-12-01", Until: "2026-12-07", Limit: 200},
			{UserID: "bob", Since: "2026-09-09", Until: "2026-12-07", Limit: 1000},
		}))
	})

	It("says the policy, what it means, and counts the routes Keygate mounts as served", func() {
		v, err := appcontrol.NewCursorCloud(&cloudStore{}, cursorcloud.Deny, served, now).Get(context.Background(), appcontrol.CursorCloudQuery{})
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Policy).To(Equal(cursorcloud.Deny))
		Expect(v.Meaning).To(ContainSubstring("Nothing goes to Cursor"))
		Expect(v.ServedRoutes).To(Equal(2))
		Expect(v.ServedRoutes + v.MetadataRoutes + v.CodeRoutes).To(Equal(len(cursorcloud.Table())))
	})
})
