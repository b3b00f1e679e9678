package teams_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/teams"
	"keygate/domain/team"
	"keygate/ports"
)

// fake holds teams, choices and groups in memory.
type fake struct {
	teams   map[string]team.Team
	choices map[string]string
	groups  map[string][]string
}

func newFake() *fake {
	return &fake{teams: map[string]team.Team{}, choices: map[string]string{}, groups: map[string][]string{}}
}

func (f *fake) Teams(context.Context) ([]team.Team, error) {
	var out []team.Team
	for _, n := range []string{"a", "ml", "ops", "web", "z"} {
		if t, ok := f.teams[n]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

func (f *fake) Team(_ context.Context, name string) (team.Team, error) {
	t, ok := f.teams[name]
	if !ok {
		return team.Team{}, ports.ErrNotFound
	}
	return t, nil
}

func (f *fake) PutTeam(_ context.Context, t team.Team) error {
	f.teams[t.Name] = t.Normalized()
	return nil
}

func (f *fake) DeleteTeam(_ context.Context, name string) error {
	delete(f.teams, name)
	return nil
}

func (f *fake) ChooseTeam(_ context.Context, u, name string) error {
	f.choices[u] = name
	return nil
}

func (f *fake) ChosenTeam(_ context.Context, u string) (string, error) { return f.choices[u], nil }

func (f *fake) RecordGroups(_ context.Context, u string, g []string, _ time.Time) error {
	f.groups[u] = g
	return nil
}

func (f *fake) Groups(_ context.Context, u string) ([]string, time.Time, error) {
	g, ok := f.groups[u]
	if !ok {
		return nil, time.Time{}, ports.ErrNotFound
	}
	return g, time.Time{}, nil
}

func (f *fake) AllGroups(context.Context, int) ([]ports.UserGroups, error) {
	var out []ports.UserGroups
	for _, u := range []string{"ada", "bob", "cy"} {
		if g, ok := f.groups[u]; ok {
			out = append(out, ports.UserGroups{UserID: u, Groups: g})
		}
	}
	return out, nil
}

var _ = Describe("Service", func() {
	var (
		f   *fake
		svc *teams.Service
		ctx = context.Background()
	)
	BeforeEach(func() {
		f = newFake()
		svc = teams.New(f, f, f)
		Expect(svc.Put(ctx, team.Team{Name: "ml", Restricted: true, Models: []string{"opus"}})).To(Succeed())
		Expect(svc.Put(ctx, team.Team{Name: "web", Restricted: true, Models: []string{"fast"}})).To(Succeed())
		f.groups["ada"] = []string{"staff", "web", "ml"}
		f.groups["bob"] = []string{"staff"}
	})

	It("charges a user to their first team, then to the one they chose", func() {
		Expect(svc.ChargedTeam(ctx, "ada")).To(Equal("web"))
		Expect(svc.Choose(ctx, "ada", "ml")).To(Succeed())
		Expect(svc.ChargedTeam(ctx, "ada")).To(Equal("ml"))
		Expect(svc.Choose(ctx, "ada", "")).To(Succeed())
		Expect(svc.ChargedTeam(ctx, "ada")).To(Equal("web"))
	})

	It("refuses a choice of a team the user is not in", func() {
		Expect(svc.Choose(ctx, "bob", "ml")).To(MatchError(teams.ErrNotMember))
		Expect(f.choices).NotTo(HaveKey("bob"))
	})

	It("follows a group change: a user who left their chosen team is charged to the next", func() {
		Expect(svc.Choose(ctx, "ada", "ml")).To(Succeed())
		f.groups["ada"] = []string{"web"}
		Expect(svc.ChargedTeam(ctx, "ada")).To(Equal("web"))
	})

	It("charges a user in no team (or never seen) to none", func() {
		Expect(svc.ChargedTeam(ctx, "bob")).To(Equal(""))
		Expect(svc.ChargedTeam(ctx, "never-seen")).To(Equal(""))
	})

	It("gives the union of a user's teams' lists, everything to a user in no team", func() {
		a, err := svc.Access(ctx, "ada")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Allows("opus") && a.Allows("fast")).To(BeTrue())
		Expect(a.Allows("gpt")).To(BeFalse())
		b, err := svc.Access(ctx, "bob")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Allows("gpt")).To(BeTrue())
	})

	It("lists teams with their members, the charged team marked, and the groups that are not teams", func() {
		f.groups["cy"] = []string{"ml"}
		listed, others, err := svc.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(listed).To(HaveLen(2))
		Expect(listed[0].Name).To(Equal("ml"))
		Expect(listed[0].Members).To(ConsistOf(teams.Member{UserID: "ada"}, teams.Member{UserID: "cy", Charged: true}))
		Expect(listed[1].Members).To(ConsistOf(teams.Member{UserID: "ada", Charged: true}))
		Expect(others).To(Equal([]string{"staff"}))
	})
})

var _ = Describe("Service.Access over time", func() {
	It("reuses a user's access for AccessTTL, reads again after it, and at once after a change made through it", func() {
		ctx := context.Background()
		f := newFake()
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		svc := teams.NewWithClock(f, f, f, func() time.Time { return now })
		Expect(svc.Put(ctx, team.Team{Name: "web", Restricted: true, Models: []string{"fast"}})).To(Succeed())
		f.groups["ada"] = []string{"web"}
		a, _ := svc.Access(ctx, "ada")
		Expect(a.Allows("opus")).To(BeFalse())

		f.groups["ada"] = nil // another replica recorded her leaving the group
		a, _ = svc.Access(ctx, "ada")
		Expect(a.Allows("opus")).To(BeFalse(), "within the TTL")
		now = now.Add(teams.AccessTTL)
		a, _ = svc.Access(ctx, "ada")
		Expect(a.Allows("opus")).To(BeTrue(), "after it")

		f.groups["ada"] = []string{"web"}
		Expect(svc.Put(ctx, team.Team{Name: "web", Restricted: true, Models: []string{"opus"}})).To(Succeed())
		a, _ = svc.Access(ctx, "ada")
		Expect(a.Allows("opus")).To(BeTrue(), "a change through the service applies at once")
		Expect(a.Allows("fast")).To(BeFalse())
	})
})

// known is a model and alias store that knows some ids.
type known map[string]bool

func (k known) ModelConfig(_ context.Context, id string) (ports.ModelConfig, error) {
	if k["model:"+id] {
		return ports.ModelConfig{ID: id}, nil
	}
	return ports.ModelConfig{}, ports.ErrNotFound
}

func (k known) Alias(_ context.Context, id string) (ports.Alias, error) {
	if k["alias:"+id] {
		return ports.Alias{ID: id}, nil
	}
	return ports.Alias{}, ports.ErrNotFound
}

var _ = Describe("Service.Put with model checks", func() {
	It("takes model and alias ids, and refuses anything else (a display name, a typo)", func() {
		ctx := context.Background()
		f := newFake()
		svc := teams.New(f, f, f)
		k := known{"model:m-1": true, "alias:a-1": true}
		svc.CheckModelsWith(k, k)
		Expect(svc.Put(ctx, team.Team{Name: "web", Restricted: true, Models: []string{"m-1", "a-1"}})).To(Succeed())
		err := svc.Put(ctx, team.Team{Name: "ml", Restricted: true, Models: []string{"m-1", "Fake GPT"}})
		Expect(err).To(MatchError(team.ErrInvalid))
		Expect(err.Error()).To(ContainSubstring(`"Fake GPT"`))
		Expect(f.teams).NotTo(HaveKey("ml"))
		Expect(svc.Put(ctx, team.Team{Name: "ops", Models: []string{"anything"}})).To(Succeed(), "an unrestricted team keeps no list")
	})
})
