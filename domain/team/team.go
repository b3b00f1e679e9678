package team

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Team is one team: an identity-provider group marked as a team.
type Team struct {
	// Name is the group's name exactly as the identity provider sends it
	// (OIDC groups claim, trusted group header, SCIM group displayName).
	Name string
	// Restricted says Models is an allow-list; an unrestricted team lets
	// its members use every model.
	Restricted bool
	// Models are the model and alias ids the members of a restricted team
	// may use; an empty list of a restricted team allows nothing.
	Models []string
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Bounds of what an administrator may store.
const (
	MaxNameBytes  = 256
	MaxModels     = 256
	MaxModelBytes = 256
)

// ErrInvalid wraps every reason Validate refuses a team.
var ErrInvalid = errors.New("invalid team")

// Validate refuses a team with no name, a name or model id with
// surrounding blanks or control characters, or lists over the bounds.
func (t Team) Validate() error {
	if err := checkName("team name", t.Name); err != nil {
		return err
	}
	if len(t.Models) > MaxModels {
		return fmt.Errorf("%w: more than %d models", ErrInvalid, MaxModels)
	}
	for _, m := range t.Models {
		if err := checkName("model id", m); err != nil {
			return err
		}
	}
	return nil
}

func checkName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: empty %s", ErrInvalid, what)
	case len(s) > MaxNameBytes:
		return fmt.Errorf("%w: %s longer than %d bytes", ErrInvalid, what, MaxNameBytes)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("%w: %s %q has surrounding blanks", ErrInvalid, what, s)
	case strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("%w: %s %q has a control character", ErrInvalid, what, s)
	}
	return nil
}

// Normalized returns t with its model list sorted and without duplicates,
// nil when the team is unrestricted.
func (t Team) Normalized() Team {
	if !t.Restricted {
		t.Models = nil
		return t
	}
	m := slices.Clone(t.Models)
	slices.Sort(m)
	t.Models = slices.Compact(m)
	if t.Models == nil {
		t.Models = []string{}
	}
	return t
}

// Of returns the teams among groups, in the order of groups (the identity
// provider's order), each once.
func Of(groups []string, teams []Team) []Team {
	byName := make(map[string]Team, len(teams))
	for _, t := range teams {
		byName[t.Name] = t
	}
	var out []Team
	seen := map[string]bool{}
	for _, g := range groups {
		if t, ok := byName[g]; ok && !seen[g] {
			seen[g] = true
			out = append(out, t)
		}
	}
	return out
}

// Charged returns the name of the team a user with groups is charged to:
// choice when it is one of their teams, else the first of their groups
// that is a team, else "" (in no team). A choice of a team the user has
// left, or of a group no longer a team, is ignored rather than kept.
func Charged(groups []string, teams []Team, choice string) string {
	mine := Of(groups, teams)
	for _, t := range mine {
		if choice != "" && t.Name == choice {
			return t.Name
		}
	}
	if len(mine) == 0 {
		return ""
	}
	return mine[0].Name
}

// Access is what models a user may use: the union of their teams' lists.
// The zero Access allows everything.
type Access struct {
	// Restricted is true when every one of the user's teams is restricted;
	// one unrestricted team (or none at all) lifts the restriction.
	Restricted bool
	// Allowed holds the model and alias ids of a restricted access.
	Allowed map[string]bool
}

// AccessOf returns the access of a user in teams (their teams, as Of
// returns them). A user in no team is unrestricted: restricting is a
// choice made per team, and a company that wants every user restricted
// makes its members' group a team with a list.
func AccessOf(mine []Team) Access {
	if len(mine) == 0 {
		return Access{}
	}
	a := Access{Restricted: true, Allowed: map[string]bool{}}
	for _, t := range mine {
		if !t.Restricted {
			return Access{}
		}
		for _, m := range t.Models {
			a.Allowed[m] = true
		}
	}
	return a
}

// Allows reports whether the access lets the user use the model or alias
// with id (an id as the console names it).
func (a Access) Allows(id string) bool {
	return !a.Restricted || a.Allowed[id]
}

// AllowsAny reports whether any of ids is allowed (a model is allowed when
// its id or one of its names is on the list).
func (a Access) AllowsAny(ids ...string) bool {
	if !a.Restricted {
		return true
	}
	for _, id := range ids {
		if a.Allowed[id] {
			return true
		}
	}
	return false
}

// ErrNotAllowed is the refusal of a model outside the user's teams' lists.
var ErrNotAllowed = errors.New("model not allowed for your team")

// Refusal is the error a door returns for a model the user may not use;
// its text is what the user sees, so it names the model and says whom to
// ask, and never lists other teams.
func Refusal(model string) error {
	return fmt.Errorf("%w: %q is not on your team's model list; ask an administrator for access", ErrNotAllowed, model)
}
