package company

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/team"
	"keygate/ports"
)

// Teams wraps next so that every team written or deleted is audited as
// team.put / team.delete with its state before and after (its allow-list
// included), and every user's choice of the team they are charged to as
// team.choose, like ModelConfigs.
func (a *Auditor) Teams(next ports.TeamStore) ports.TeamStore {
	return auditedTeams{TeamStore: next, a: a}
}

type auditedTeams struct {
	ports.TeamStore
	a *Auditor
}

func (t auditedTeams) PutTeam(ctx context.Context, tm team.Team) error {
	before, err := t.previous(ctx, tm.Name)
	if err != nil {
		return err
	}
	if err := t.TeamStore.PutTeam(ctx, tm); err != nil {
		return err
	}
	return t.a.Record(ctx, actor(ctx), "team.put", tm.Name, before, tm.Normalized())
}

func (t auditedTeams) DeleteTeam(ctx context.Context, name string) error {
	before, err := t.previous(ctx, name)
	if err != nil {
		return err
	}
	if err := t.TeamStore.DeleteTeam(ctx, name); err != nil {
		return err
	}
	return t.a.Record(ctx, actor(ctx), "team.delete", name, before, nil)
}

func (t auditedTeams) ChooseTeam(ctx context.Context, userID, name string) error {
	before, err := t.ChosenTeam(ctx, userID)
	if err != nil {
		return fmt.Errorf("audit team choice of %s: %w", userID, err)
	}
	if err := t.TeamStore.ChooseTeam(ctx, userID, name); err != nil {
		return err
	}
	return t.a.Record(ctx, actor(ctx), "team.choose", userID, before, name)
}

func (t auditedTeams) previous(ctx context.Context, name string) (any, error) {
	tm, err := t.Team(ctx, name)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit team %s: %w", name, err)
	}
	return tm, nil
}
