package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// Teams and users' team choices: relstore maps the rows (team.go), this
// file binds them to the generated queries.

func teamColumns(r sqlitedb.Team) relstore.TeamColumns {
	return relstore.TeamColumns{Name: r.Name, Restricted: r.Restricted, Models: r.Models, CreatedAt: relstore.TimeOf(r.CreatedAt), UpdatedAt: relstore.TimeOf(r.UpdatedAt)}
}

func (t tx) ListTeams(ctx context.Context) ([]relstore.TeamColumns, error) {
	rows, err := t.q.ListTeams(ctx)
	return relstore.Pick(rows, teamColumns), interpretError(ctx, err)
}

func (t tx) GetTeam(ctx context.Context, name string) (relstore.TeamColumns, error) {
	r, err := t.q.GetTeam(ctx, name)
	if err != nil {
		return relstore.TeamColumns{}, interpretError(ctx, err)
	}
	return teamColumns(r), nil
}

func (t tx) UpsertTeam(ctx context.Context, c relstore.TeamColumns) error {
	return interpretError(ctx, t.q.UpsertTeam(ctx, sqlitedb.UpsertTeamParams{
		Name: c.Name, Restricted: c.Restricted, Models: c.Models,
		CreatedAt: relstore.StampOf[int64](c.CreatedAt), UpdatedAt: relstore.StampOf[int64](c.UpdatedAt),
	}))
}

func (t tx) DeleteTeam(ctx context.Context, name string) (bool, error) {
	n, err := t.q.DeleteTeam(ctx, name)
	return n > 0, interpretError(ctx, err)
}

func (t tx) UpsertTeamChoice(ctx context.Context, userID, name string, at time.Time) error {
	return interpretError(ctx, t.q.UpsertTeamChoice(ctx, sqlitedb.UpsertTeamChoiceParams{UserID: userID, Team: name, ChosenAt: relstore.StampOf[int64](at)}))
}

func (t tx) DeleteTeamChoice(ctx context.Context, userID string) error {
	return interpretError(ctx, t.q.DeleteTeamChoice(ctx, userID))
}

func (t tx) GetTeamChoice(ctx context.Context, userID string) (string, error) {
	name, err := t.q.GetTeamChoice(ctx, userID)
	return name, interpretError(ctx, err)
}

func (t tx) ListAllUserGroups(ctx context.Context, limit int) ([]ports.UserGroups, error) {
	rows, err := t.q.ListAllUserGroups(ctx, int64(limit))
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]ports.UserGroups, 0, len(rows))
	for _, r := range rows {
		u, err := relstore.UserGroupsOf(r.UserID, r.Groups)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}
