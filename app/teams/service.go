package teams

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"keygate/domain/team"
	"keygate/ports"
)

// MaxMembersListed bounds the users read to list teams' members.
const MaxMembersListed = 10000

// ErrNotMember refuses a user's choice of a team they are not in.
var ErrNotMember = errors.New("you are not a member of that team")

// AccessTTL is how long a user's model access is reused before the stores
// are read again: every model call (each Tab pause among them) asks, and a
// change made on another replica applies within it. A change made through
// this Service applies at once.
const AccessTTL = 2 * time.Second

// maxCached bounds the users whose access is remembered; past it the
// memory starts over.
const maxCached = 10_000

// Service answers team questions over the stores. It is safe for
// concurrent use.
type Service struct {
	teams   ports.TeamStore
	members ports.MembershipStore
	groups  ports.GroupLister
	now     func() time.Time

	mu     sync.Mutex
	cached map[string]cachedAccess

	models  ModelIDs
	aliases AliasIDs
}

// ModelIDs reads a model configuration by id (ports.ModelConfigStore's
// read).
type ModelIDs interface {
	ModelConfig(ctx context.Context, id string) (ports.ModelConfig, error)
}

// AliasIDs reads an alias by id (ports.AliasStore's read).
type AliasIDs interface {
	Alias(ctx context.Context, id string) (ports.Alias, error)
}

// CheckModelsWith makes Put refuse an allow-list entry that is neither a
// configured model's id nor an alias's (a display name, a typo), which
// would silently allow nothing. Call it before the first Put.
func (s *Service) CheckModelsWith(models ModelIDs, aliases AliasIDs) {
	s.models, s.aliases = models, aliases
}

// checkModels refuses entries of t's list that name no model or alias.
func (s *Service) checkModels(ctx context.Context, t team.Team) error {
	if s.models == nil || !t.Restricted {
		return nil
	}
	for _, id := range t.Models {
		_, err := s.models.ModelConfig(ctx, id)
		if errors.Is(err, ports.ErrNotFound) && s.aliases != nil {
			_, err = s.aliases.Alias(ctx, id)
		}
		switch {
		case errors.Is(err, ports.ErrNotFound):
			return fmt.Errorf("%w: %q is not the id of a configured model or alias", team.ErrInvalid, id)
		case err != nil:
			return fmt.Errorf("check model %q: %w", id, err)
		}
	}
	return nil
}

type cachedAccess struct {
	access team.Access
	at     time.Time
}

var _ ports.ChargedTeams = (*Service)(nil)

// New returns the use case over its stores.
func New(teams ports.TeamStore, members ports.MembershipStore, groups ports.GroupLister) *Service {
	return &Service{teams: teams, members: members, groups: groups, now: time.Now, cached: map[string]cachedAccess{}}
}

// groupsOf returns userID's recorded groups, nil when none were recorded.
func (s *Service) groupsOf(ctx context.Context, userID string) ([]string, error) {
	groups, _, err := s.members.Groups(ctx, userID)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("groups of %s: %w", userID, err)
	}
	return groups, nil
}

// Mine is what a user sees of their own teams.
type Mine struct {
	// Teams are the user's teams in the identity provider's order.
	Teams []team.Team
	// Charged is the team the user is charged to, "" for none.
	Charged string
	// Choice is the user's stored choice ("" for none), which may name a
	// team they have left (then ignored).
	Choice string
}

// Of returns userID's teams, charged team and stored choice.
func (s *Service) Of(ctx context.Context, userID string) (Mine, error) {
	groups, err := s.groupsOf(ctx, userID)
	if err != nil {
		return Mine{}, err
	}
	all, err := s.teams.Teams(ctx)
	if err != nil {
		return Mine{}, fmt.Errorf("teams of %s: %w", userID, err)
	}
	choice, err := s.teams.ChosenTeam(ctx, userID)
	if err != nil {
		return Mine{}, fmt.Errorf("teams of %s: %w", userID, err)
	}
	return Mine{Teams: team.Of(groups, all), Charged: team.Charged(groups, all, choice), Choice: choice}, nil
}

// ChargedTeam implements ports.ChargedTeams.
func (s *Service) ChargedTeam(ctx context.Context, userID string) (string, error) {
	m, err := s.Of(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("charged team: %w", err)
	}
	return m.Charged, nil
}

// Access returns the models userID may use, as read at most AccessTTL ago.
func (s *Service) Access(ctx context.Context, userID string) (team.Access, error) {
	now := s.now()
	s.mu.Lock()
	c, ok := s.cached[userID]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < AccessTTL && !now.Before(c.at) {
		return c.access, nil
	}
	a, err := s.readAccess(ctx, userID)
	if err != nil {
		return team.Access{}, err
	}
	s.mu.Lock()
	if len(s.cached) >= maxCached {
		s.cached = map[string]cachedAccess{}
	}
	s.cached[userID] = cachedAccess{access: a, at: now}
	s.mu.Unlock()
	return a, nil
}

// forget drops every remembered access (after a change of teams).
func (s *Service) forget() {
	s.mu.Lock()
	s.cached = map[string]cachedAccess{}
	s.mu.Unlock()
}

// readAccess reads userID's access from the stores.
func (s *Service) readAccess(ctx context.Context, userID string) (team.Access, error) {
	groups, err := s.groupsOf(ctx, userID)
	if err != nil {
		return team.Access{}, fmt.Errorf("model access: %w", err)
	}
	if len(groups) == 0 {
		return team.Access{}, nil
	}
	all, err := s.teams.Teams(ctx)
	if err != nil {
		return team.Access{}, fmt.Errorf("model access of %s: %w", userID, err)
	}
	return team.AccessOf(team.Of(groups, all)), nil
}

// Choose stores name as the team userID is charged to; "" clears the
// choice (back to their first team). A team the user is not in is refused
// with ErrNotMember.
func (s *Service) Choose(ctx context.Context, userID, name string) error {
	if name != "" {
		m, err := s.Of(ctx, userID)
		if err != nil {
			return fmt.Errorf("choose team: %w", err)
		}
		if !slices.ContainsFunc(m.Teams, func(t team.Team) bool { return t.Name == name }) {
			return fmt.Errorf("choose team %q: %w", name, ErrNotMember)
		}
	}
	if err := s.teams.ChooseTeam(ctx, userID, name); err != nil {
		return fmt.Errorf("choose team: %w", err)
	}
	return nil
}

// Member is one user of a team as the console lists them.
type Member struct {
	UserID string
	// Charged says the user's use is charged to this team.
	Charged bool
}

// Listed is a team with its members.
type Listed struct {
	team.Team
	Members []Member
}

// List returns every team with its members (users by id), and the groups
// recorded for users that are not teams, so an administrator can mark one.
func (s *Service) List(ctx context.Context) ([]Listed, []string, error) {
	all, err := s.teams.Teams(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list teams: %w", err)
	}
	users, err := s.groups.AllGroups(ctx, MaxMembersListed)
	if err != nil {
		return nil, nil, fmt.Errorf("list teams: %w", err)
	}
	idx := make(map[string]int, len(all))
	out := make([]Listed, len(all))
	for i, t := range all {
		idx[t.Name] = i
		out[i] = Listed{Team: t}
	}
	others := map[string]bool{}
	for _, u := range users {
		mine := team.Of(u.Groups, all)
		charged := ""
		if len(mine) > 0 {
			choice, err := s.teams.ChosenTeam(ctx, u.UserID)
			if err != nil {
				return nil, nil, fmt.Errorf("list teams: %w", err)
			}
			charged = team.Charged(u.Groups, all, choice)
		}
		for _, t := range mine {
			i := idx[t.Name]
			out[i].Members = append(out[i].Members, Member{UserID: u.UserID, Charged: t.Name == charged})
		}
		for _, g := range u.Groups {
			if _, ok := idx[g]; !ok {
				others[g] = true
			}
		}
	}
	groups := make([]string, 0, len(others))
	for g := range others {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	return out, groups, nil
}

// Put creates or replaces a team (an administrator's action; the caller
// checks the role and the store decorator audits it).
func (s *Service) Put(ctx context.Context, t team.Team) error {
	if err := s.checkModels(ctx, t); err != nil {
		return fmt.Errorf("put team: %w", err)
	}
	defer s.forget()
	if err := s.teams.PutTeam(ctx, t); err != nil {
		return fmt.Errorf("put team: %w", err)
	}
	return nil
}

// Delete removes a team; its group stays a group.
func (s *Service) Delete(ctx context.Context, name string) error {
	defer s.forget()
	if err := s.teams.DeleteTeam(ctx, name); err != nil {
		return fmt.Errorf("delete team: %w", err)
	}
	return nil
}

// NewWithClock is New with the clock the access memory reads (specs).
func NewWithClock(teams ports.TeamStore, members ports.MembershipStore, groups ports.GroupLister, now func() time.Time) *Service {
	s := New(teams, members, groups)
	s.now = now
	return s
}
