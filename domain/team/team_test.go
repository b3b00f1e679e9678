package team_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/team"
)

var (
	ml      = team.Team{Name: "ml", Restricted: true, Models: []string{"opus", "fast"}}
	web     = team.Team{Name: "web", Restricted: true, Models: []string{"fast"}}
	ops     = team.Team{Name: "ops"}
	allTeam = []team.Team{ml, web, ops}
)

var _ = DescribeTable("Charged: the team a user is charged to",
	func(groups []string, choice, want string) {
		Expect(team.Charged(groups, allTeam, choice)).To(Equal(want))
	},
	Entry("the first of their groups that is a team", []string{"staff", "web", "ml"}, "", "web"),
	Entry("their choice while they are in it", []string{"staff", "web", "ml"}, "ml", "ml"),
	Entry("a choice of a team they left falls back to the first", []string{"web"}, "ml", "web"),
	Entry("a choice of a group that is not a team is ignored", []string{"staff", "web"}, "staff", "web"),
	Entry("in no team: none", []string{"staff"}, "ml", ""),
	Entry("no groups: none", nil, "", ""),
)

var _ = Describe("Access", func() {
	It("is the union of a user's restricted teams' lists", func() {
		a := team.AccessOf(team.Of([]string{"ml", "web"}, allTeam))
		Expect(a.Allows("opus")).To(BeTrue())
		Expect(a.Allows("fast")).To(BeTrue())
		Expect(a.Allows("gpt")).To(BeFalse())
	})

	It("restricts a user whose only team is restricted", func() {
		a := team.AccessOf(team.Of([]string{"staff", "web"}, allTeam))
		Expect(a.Allows("fast")).To(BeTrue())
		Expect(a.Allows("opus")).To(BeFalse())
		Expect(a.AllowsAny("x", "fast")).To(BeTrue())
		Expect(a.AllowsAny("x", "opus")).To(BeFalse())
	})

	It("lifts the restriction when one of the user's teams has no list", func() {
		a := team.AccessOf(team.Of([]string{"web", "ops"}, allTeam))
		Expect(a.Allows("anything")).To(BeTrue())
	})

	It("allows everything to a user in no team", func() {
		Expect(team.AccessOf(team.Of([]string{"staff"}, allTeam)).Allows("opus")).To(BeTrue())
	})

	It("allows nothing through a restricted team with an empty list", func() {
		a := team.AccessOf([]team.Team{{Name: "none", Restricted: true}})
		Expect(a.Allows("fast")).To(BeFalse())
	})

	It("refuses with a message naming the model and the way to get access", func() {
		err := team.Refusal("opus")
		Expect(err).To(MatchError(team.ErrNotAllowed))
		Expect(err.Error()).To(ContainSubstring(`"opus"`))
		Expect(err.Error()).To(ContainSubstring("administrator"))
	})
})

var _ = DescribeTable("Validate",
	func(t team.Team, ok bool) {
		if ok {
			Expect(t.Validate()).To(Succeed())
		} else {
			Expect(t.Validate()).To(MatchError(team.ErrInvalid))
		}
	},
	Entry("a name alone", team.Team{Name: "ml"}, true),
	Entry("a list", ml, true),
	Entry("no name", team.Team{}, false),
	Entry("a name with blanks around", team.Team{Name: " ml"}, false),
	Entry("a control character", team.Team{Name: "m\nl"}, false),
	Entry("an over-long name", team.Team{Name: strings.Repeat("a", team.MaxNameBytes+1)}, false),
	Entry("an empty model id", team.Team{Name: "ml", Restricted: true, Models: []string{""}}, false),
)

var _ = Describe("Normalized", func() {
	It("sorts and dedups a list, drops the list of an unrestricted team", func() {
		Expect(team.Team{Name: "a", Restricted: true, Models: []string{"b", "a", "b"}}.Normalized().Models).To(Equal([]string{"a", "b"}))
		Expect(team.Team{Name: "a", Models: []string{"b"}}.Normalized().Models).To(BeNil())
		Expect(team.Team{Name: "a", Restricted: true}.Normalized().Models).To(Equal([]string{}))
	})
})
