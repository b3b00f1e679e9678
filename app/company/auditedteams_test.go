package company_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/team"
	"keygate/ports"
)

var _ = Describe("Auditor.Teams", func() {
	It("audits who marked a team, changed its allow-list, deleted it, and each user's choice", func() {
		admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
		ctx := access.NewContext(context.Background(), admin)
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db)
		teams := company.NewAuditor(st.Audit(), runtest.NewClock()).Teams(st.Teams())

		Expect(teams.PutTeam(ctx, team.Team{Name: "ml"})).To(Succeed())
		Expect(teams.PutTeam(ctx, team.Team{Name: "ml", Restricted: true, Models: []string{"opus"}})).To(Succeed())
		Expect(teams.ChooseTeam(ctx, "ada", "ml")).To(Succeed())
		Expect(teams.DeleteTeam(ctx, "ml")).To(Succeed())

		list, err := st.Audit().AuditEntries(context.Background(), ports.AuditQuery{})
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for _, e := range list {
			got = append(got, e.Actor.UserID+" "+e.Action+" "+e.Target)
		}
		Expect(got).To(Equal([]string{"root team.delete ml", "root team.choose ada", "root team.put ml", "root team.put ml"}))
		var after team.Team
		Expect(json.Unmarshal(list[2].After, &after)).To(Succeed())
		Expect(after.Models).To(Equal([]string{"opus"}), "the allow-list is in the entry")
	})
})
