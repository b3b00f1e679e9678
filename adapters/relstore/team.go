package relstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"keygate/domain/team"
	"keygate/ports"
)

// Teams implements ports.TeamStore and ports.GroupLister.
type Teams struct{ s *Store }

var (
	_ ports.TeamStore   = Teams{}
	_ ports.GroupLister = Teams{}
)

// Teams returns the store of teams, users' team choices and the listing of
// every user's recorded groups.
func (s *Store) Teams() Teams { return Teams{s} }

type teamRows interface {
	// ListTeams returns every team by Name.
	ListTeams(ctx context.Context) ([]TeamColumns, error)
	// GetTeam returns one team, or ports.ErrNotFound.
	GetTeam(ctx context.Context, name string) (TeamColumns, error)
	// UpsertTeam creates or replaces a team, keeping created_at.
	UpsertTeam(ctx context.Context, t TeamColumns) error
	// DeleteTeam reports whether the team was there.
	DeleteTeam(ctx context.Context, name string) (bool, error)
	// UpsertTeamChoice stores a user's choice; DeleteTeamChoice clears it.
	UpsertTeamChoice(ctx context.Context, userID, name string, at time.Time) error
	DeleteTeamChoice(ctx context.Context, userID string) error
	// GetTeamChoice returns a user's choice, or ports.ErrNotFound.
	GetTeamChoice(ctx context.Context, userID string) (string, error)
	// ListAllUserGroups returns up to limit users' groups (JSON) by user id.
	ListAllUserGroups(ctx context.Context, limit int) ([]ports.UserGroups, error)
}

// TeamColumns is a teams row with its times as time.Time; each engine
// converts its Stamp at the binding.
type TeamColumns struct {
	Name       string
	Restricted bool
	Models     string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

func teamOf(c TeamColumns) (team.Team, error) {
	t := team.Team{Name: c.Name, Restricted: c.Restricted, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if c.Restricted {
		if err := json.Unmarshal([]byte(c.Models), &t.Models); err != nil {
			return team.Team{}, fmt.Errorf("team %q models: %w", c.Name, err)
		}
		if t.Models == nil {
			t.Models = []string{}
		}
	}
	return t, nil
}

// Teams implements ports.TeamStore.
func (st Teams) Teams(ctx context.Context) ([]team.Team, error) {
	var rows []TeamColumns
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		rows, err = tx.ListTeams(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	out := make([]team.Team, 0, len(rows))
	for _, r := range rows {
		t, err := teamOf(r)
		if err != nil {
			return nil, fmt.Errorf("list teams: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Team implements ports.TeamStore.
func (st Teams) Team(ctx context.Context, name string) (team.Team, error) {
	var row TeamColumns
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		row, err = tx.GetTeam(ctx, name)
		return err
	})
	if err != nil {
		return team.Team{}, fmt.Errorf("read team %q: %w", name, err)
	}
	t, err := teamOf(row)
	if err != nil {
		return team.Team{}, fmt.Errorf("read team %q: %w", name, err)
	}
	return t, nil
}

// PutTeam implements ports.TeamStore.
func (st Teams) PutTeam(ctx context.Context, t team.Team) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("put team: %w", err)
	}
	t = t.Normalized()
	models := []byte("[]")
	if t.Restricted {
		var err error
		if models, err = json.Marshal(t.Models); err != nil {
			return fmt.Errorf("put team %q: %w", t.Name, err)
		}
	}
	now := st.s.now().UTC().Truncate(time.Millisecond)
	row := TeamColumns{Name: t.Name, Restricted: t.Restricted, Models: string(models), CreatedAt: now, UpdatedAt: now}
	if err := st.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertTeam(ctx, row) }); err != nil {
		return fmt.Errorf("put team %q: %w", t.Name, err)
	}
	return nil
}

// DeleteTeam implements ports.TeamStore.
func (st Teams) DeleteTeam(ctx context.Context, name string) error {
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteTeam(ctx, name)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete team %q: %w", name, err)
	}
	return nil
}

// ChooseTeam implements ports.TeamStore.
func (st Teams) ChooseTeam(ctx context.Context, userID, name string) error {
	now := st.s.now().UTC().Truncate(time.Millisecond)
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		if name == "" {
			return tx.DeleteTeamChoice(ctx, userID)
		}
		return tx.UpsertTeamChoice(ctx, userID, name, now)
	})
	if err != nil {
		return fmt.Errorf("choose team of %s: %w", userID, err)
	}
	return nil
}

// ChosenTeam implements ports.TeamStore.
func (st Teams) ChosenTeam(ctx context.Context, userID string) (string, error) {
	var name string
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		name, err = tx.GetTeamChoice(ctx, userID)
		return err
	})
	if errors.Is(err, ports.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read team choice of %s: %w", userID, err)
	}
	return name, nil
}

// AllGroups implements ports.GroupLister.
func (st Teams) AllGroups(ctx context.Context, limit int) ([]ports.UserGroups, error) {
	var out []ports.UserGroups
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListAllUserGroups(ctx, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list users' groups: %w", err)
	}
	return out, nil
}

// UserGroupsOf decodes a user_groups row.
func UserGroupsOf(userID, raw string) (ports.UserGroups, error) {
	u := ports.UserGroups{UserID: userID}
	if err := json.Unmarshal([]byte(raw), &u.Groups); err != nil {
		return ports.UserGroups{}, fmt.Errorf("groups of %s: %w", userID, err)
	}
	return u, nil
}
