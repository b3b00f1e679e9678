package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/team"
	"keygate/ports"
)

// TeamHarness is one store's team ports: the teams, the recorded groups
// (written through Memberships, listed through Groups).
type TeamHarness struct {
	Teams       ports.TeamStore
	Memberships ports.MembershipStore
	Groups      ports.GroupLister
}

// DescribeTeamStore declares the contract suites of ports.TeamStore and
// ports.GroupLister. open returns stores that may already hold other
// specs' data: every spec uses its own names.
func DescribeTeamStore(name string, open func() TeamHarness) bool {
	return Describe(name+" TeamStore", func() {
		var (
			h   TeamHarness
			ctx context.Context
		)
		BeforeEach(func() { h, ctx = open(), context.Background() })

		It("stores, lists, replaces and deletes a team with its allow-list", func() {
			a, b := uniq("ml ü"), uniq("web")
			Expect(h.Teams.PutTeam(ctx, team.Team{Name: a, Restricted: true, Models: []string{"opus", "fast", "opus"}})).To(Succeed())
			Expect(h.Teams.PutTeam(ctx, team.Team{Name: b, Models: []string{"ignored"}})).To(Succeed())

			got, err := h.Teams.Team(ctx, a)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Restricted).To(BeTrue())
			Expect(got.Models).To(Equal([]string{"fast", "opus"}), "sorted, each once")
			Expect(got.CreatedAt).NotTo(BeZero())
			open, err := h.Teams.Team(ctx, b)
			Expect(err).NotTo(HaveOccurred())
			Expect(open.Restricted).To(BeFalse())
			Expect(open.Models).To(BeEmpty(), "an unrestricted team keeps no list")

			all, err := h.Teams.Teams(ctx)
			Expect(err).NotTo(HaveOccurred())
			var mine []string
			for _, t := range all {
				if t.Name == a || t.Name == b {
					mine = append(mine, t.Name)
				}
			}
			Expect(mine).To(HaveLen(2))
			Expect(mine[0] < mine[1]).To(BeTrue(), "ordered by name")

			Expect(h.Teams.PutTeam(ctx, team.Team{Name: a, Restricted: true})).To(Succeed())
			again, err := h.Teams.Team(ctx, a)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Restricted).To(BeTrue())
			Expect(again.Models).To(BeEmpty(), "a restricted team with an empty list allows nothing")
			Expect(again.CreatedAt).To(Equal(got.CreatedAt), "a replacement keeps CreatedAt")

			Expect(h.Teams.DeleteTeam(ctx, a)).To(Succeed())
			_, err = h.Teams.Team(ctx, a)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(h.Teams.DeleteTeam(ctx, a)).To(MatchError(ports.ErrNotFound))
		})

		It("refuses a team that does not validate", func() {
			Expect(h.Teams.PutTeam(ctx, team.Team{Name: " x"})).To(MatchError(team.ErrInvalid))
			Expect(h.Teams.PutTeam(ctx, team.Team{})).To(MatchError(team.ErrInvalid))
		})

		It("keeps, replaces and clears a user's choice of team", func() {
			u := uniq("user")
			Expect(h.Teams.ChosenTeam(ctx, u)).To(Equal(""))
			Expect(h.Teams.ChooseTeam(ctx, u, "ml")).To(Succeed())
			Expect(h.Teams.ChosenTeam(ctx, u)).To(Equal("ml"))
			Expect(h.Teams.ChooseTeam(ctx, u, "web")).To(Succeed())
			Expect(h.Teams.ChosenTeam(ctx, u)).To(Equal("web"))
			Expect(h.Teams.ChooseTeam(ctx, u, "")).To(Succeed())
			Expect(h.Teams.ChosenTeam(ctx, u)).To(Equal(""))
		})

		It("lists every user's recorded groups, bounded", func() {
			u1, u2 := uniq("lister-a"), uniq("lister-b")
			now := time.Now()
			Expect(h.Memberships.RecordGroups(ctx, u1, []string{"ml", "staff"}, now)).To(Succeed())
			Expect(h.Memberships.RecordGroups(ctx, u2, nil, now)).To(Succeed())
			all, err := h.Groups.AllGroups(ctx, 10000)
			Expect(err).NotTo(HaveOccurred())
			byUser := map[string][]string{}
			for _, g := range all {
				byUser[g.UserID] = g.Groups
			}
			Expect(byUser).To(HaveKeyWithValue(u1, []string{"ml", "staff"}))
			Expect(byUser).To(HaveKey(u2))
			Expect(byUser[u2]).To(BeEmpty())
			one, err := h.Groups.AllGroups(ctx, 1)
			Expect(err).NotTo(HaveOccurred())
			Expect(one).To(HaveLen(1))
		})

		It("returns the context's error when cancelled and writes nothing", func() {
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			a := uniq("cancelled")
			Expect(h.Teams.PutTeam(cancelled, team.Team{Name: a})).To(MatchError(context.Canceled))
			_, err := h.Teams.Team(ctx, a)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(h.Teams.ChooseTeam(cancelled, a, "ml")).To(MatchError(context.Canceled))
			Expect(h.Teams.ChosenTeam(ctx, a)).To(Equal(""))
		})
	})
}
