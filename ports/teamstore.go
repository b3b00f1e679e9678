package ports

import (
	"context"

	"keygate/domain/team"
)

// TeamStore keeps the teams an administrator marked among the identity
// provider's groups (with their model allow-lists) and the team each user
// chose to be charged to. Membership itself is not kept here: it is the
// user's recorded groups (MembershipStore), whoever recorded them (sign-in,
// trusted proxy header, SCIM).
//
// Every method returns ctx.Err() (wrapped) on a cancelled context and then
// has written nothing.
type TeamStore interface {
	// Teams returns every team ordered by Name.
	Teams(ctx context.Context) ([]team.Team, error)
	// Team returns the team named name, or ErrNotFound.
	Team(ctx context.Context, name string) (team.Team, error)
	// PutTeam creates or replaces the team t.Name (t.Validate must pass,
	// an error otherwise), storing t.Normalized(); a replacement keeps
	// CreatedAt.
	PutTeam(ctx context.Context, t team.Team) error
	// DeleteTeam removes the team name, or returns ErrNotFound. Users'
	// choices of it stay stored and are ignored (team.Charged) until a
	// team of that name exists again.
	DeleteTeam(ctx context.Context, name string) error
	// ChooseTeam stores name as the team userID is charged to; "" clears
	// the choice. The store does not check membership: team.Charged
	// ignores a choice the user is not a member of.
	ChooseTeam(ctx context.Context, userID, name string) error
	// ChosenTeam returns userID's stored choice, "" when none.
	ChosenTeam(ctx context.Context, userID string) (string, error)
}

// UserGroups are one user's recorded groups.
type UserGroups struct {
	UserID string
	Groups []string
}

// GroupLister lists every user's recorded groups (the rows of
// MembershipStore), for the console's team members. Ordered by UserID; at
// most limit users (limit > 0).
//
// Returns ctx.Err() (wrapped) on a cancelled context.
type GroupLister interface {
	AllGroups(ctx context.Context, limit int) ([]UserGroups, error)
}

// ChargedTeams answers which team a user's use is charged to: the one
// lookup budgets and spend reports key on. Implemented by app/teams over
// MembershipStore and TeamStore with team.Charged (the user's chosen team
// while they are in it, else the first of their groups that is a team).
type ChargedTeams interface {
	// ChargedTeam returns the name of the team userID is charged to, ""
	// when they are in no team (or nothing was recorded of their groups).
	// An error means the stores could not be read; it is never returned
	// for a user who merely has no team.
	ChargedTeam(ctx context.Context, userID string) (string, error)
}
