package postgres

import (
	"context"
	"time"

	"keygate/domain/routing"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) GetRouteHealth(ctx context.Context, subjects []string) (map[string]routing.Health, error) {
	rows, err := t.q.GetRouteHealth(ctx, subjects)
	out := make(map[string]routing.Health, len(rows))
	for _, r := range rows {
		out[r.Subject] = healthFromRow(r)
	}
	return out, interpretError(ctx, err)
}

func (t tx) RecordRouteFailure(ctx context.Context, subject string, f routing.Failure, _ time.Time) (routing.Health, error) {
	auth := int64(0)
	if f.Auth {
		auth = 1
	}
	row, err := t.q.RecordRouteFailure(ctx, pgdb.RecordRouteFailureParams{Subject: subject, CoolUntil: f.CoolUntil,
		LastError: f.Message, LastErrorAt: f.At, AuthFailures: auth})
	return healthFromRow(row), interpretError(ctx, err)
}

func (t tx) RecordRouteSuccess(ctx context.Context, subject string, at time.Time) error {
	return interpretError(ctx, t.q.RecordRouteSuccess(ctx, pgdb.RecordRouteSuccessParams{Subject: subject, UpdatedAt: at, CoolUntil: time.Time{}}))
}

func (t tx) GetRouteAffinity(ctx context.Context, conversationID, routeID string) (string, error) {
	target, err := t.q.GetRouteAffinity(ctx, pgdb.GetRouteAffinityParams{ConversationID: conversationID, RouteID: routeID})
	return target, interpretError(ctx, err)
}

func (t tx) SetRouteAffinity(ctx context.Context, conversationID, routeID, targetID string, at time.Time) error {
	return interpretError(ctx, t.q.SetRouteAffinity(ctx, pgdb.SetRouteAffinityParams{
		ConversationID: conversationID, RouteID: routeID, TargetID: targetID, UpdatedAt: at}))
}

func (t tx) UpsertAlias(ctx context.Context, a ports.Alias, now time.Time) error {
	return interpretError(ctx, t.q.UpsertAlias(ctx, pgdb.UpsertAliasParams{
		ID: a.ID, SortOrder: int64(a.SortOrder), DisplayName: a.DisplayName, GroupName: a.GroupName, Tooltip: a.Tooltip,
		Enabled: a.Enabled, Strategy: nameOf(a.Strategy), FirstTokenTimeoutMs: a.FirstTokenTimeout.Milliseconds(),
		CreatedAt: now}))
}

func (t tx) GetAlias(ctx context.Context, id string) (ports.Alias, error) {
	row, err := t.q.GetAlias(ctx, id)
	return aliasFromRow(row), interpretError(ctx, err)
}

func (t tx) ListAliases(ctx context.Context) ([]ports.Alias, error) {
	rows, err := t.q.ListAliases(ctx)
	out := make([]ports.Alias, len(rows))
	for i, r := range rows {
		out[i] = aliasFromRow(r)
	}
	return out, interpretError(ctx, err)
}

func (t tx) DeleteAlias(ctx context.Context, id string) (bool, error) {
	n, err := t.q.DeleteAlias(ctx, id)
	return n > 0, interpretError(ctx, err)
}

func (t tx) ListAliasTargets(ctx context.Context, aliasID string) ([]ports.AliasTarget, error) {
	rows, err := t.q.ListAliasTargets(ctx, aliasID)
	out := make([]ports.AliasTarget, len(rows))
	for i, r := range rows {
		out[i] = ports.AliasTarget{ModelID: r.ModelID, Weight: int(r.Weight), Drained: r.Drained}
	}
	return out, interpretError(ctx, err)
}

func (t tx) ListAllAliasTargets(ctx context.Context) (map[string][]ports.AliasTarget, error) {
	rows, err := t.q.ListAllAliasTargets(ctx)
	out := map[string][]ports.AliasTarget{}
	for _, r := range rows {
		out[r.AliasID] = append(out[r.AliasID], ports.AliasTarget{ModelID: r.ModelID, Weight: int(r.Weight), Drained: r.Drained})
	}
	return out, interpretError(ctx, err)
}

func (t tx) DeleteAliasTargets(ctx context.Context, aliasID string) error {
	return interpretError(ctx, t.q.DeleteAliasTargets(ctx, aliasID))
}

func (t tx) InsertAliasTarget(ctx context.Context, aliasID string, position int, tg ports.AliasTarget) error {
	return interpretError(ctx, t.q.InsertAliasTarget(ctx, pgdb.InsertAliasTargetParams{AliasID: aliasID, Position: int64(position),
		ModelID: tg.ModelID, Weight: int64(tg.Weight), Drained: tg.Drained}))
}

func healthFromRow(r pgdb.RouteHealth) routing.Health {
	return routing.Health{CoolUntil: utc(r.CoolUntil), LastError: r.LastError, LastErrorAt: utc(r.LastErrorAt),
		Failures: int(r.Failures), AuthFailures: int(r.AuthFailures)}
}

func aliasFromRow(r pgdb.Alias) ports.Alias {
	return ports.Alias{ID: r.ID, SortOrder: int(r.SortOrder), DisplayName: r.DisplayName, GroupName: r.GroupName,
		Tooltip: r.Tooltip, Enabled: r.Enabled, Strategy: routing.ParseTargetStrategy(r.Strategy),
		FirstTokenTimeout: time.Duration(r.FirstTokenTimeoutMs) * time.Millisecond,
		CreatedAt:         utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt)}
}

// nameOf is the stored name of a strategy; zero is "".
func nameOf(s routing.TargetStrategy) string {
	if s == 0 {
		return ""
	}
	return s.String()
}
