package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/routing"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// Route health, affinity, aliases and their targets: relstore builds and
// maps the rows (routerows.go), this file binds them to the generated
// queries.

func (t tx) GetRouteHealth(ctx context.Context, subjects []string) (map[string]routing.Health, error) {
	rows, err := t.q.GetRouteHealth(ctx, jsonList(subjects))
	return relstore.HealthBySubject(relstore.Pick(rows, healthColumns)), interpretError(ctx, err)
}

func (t tx) RecordRouteFailure(ctx context.Context, subject string, f routing.Failure, _ time.Time) (routing.Health, error) {
	row, err := t.q.RecordRouteFailure(ctx, sqlitedb.RecordRouteFailureParams(relstore.RouteFailureOf[int64](subject, f)))
	return healthColumns(row).Health(), interpretError(ctx, err)
}

func (t tx) RecordRouteSuccess(ctx context.Context, subject string, at time.Time) error {
	return interpretError(ctx, t.q.RecordRouteSuccess(ctx, sqlitedb.RecordRouteSuccessParams{Subject: subject, UpdatedAt: ms(at)}))
}

func (t tx) GetRouteAffinity(ctx context.Context, conversationID, routeID string) (string, error) {
	target, err := t.q.GetRouteAffinity(ctx, sqlitedb.GetRouteAffinityParams{ConversationID: conversationID, RouteID: routeID})
	return target, interpretError(ctx, err)
}

func (t tx) SetRouteAffinity(ctx context.Context, conversationID, routeID, targetID string, at time.Time) error {
	return interpretError(ctx, t.q.SetRouteAffinity(ctx, sqlitedb.SetRouteAffinityParams{
		ConversationID: conversationID, RouteID: routeID, TargetID: targetID, UpdatedAt: ms(at)}))
}

func (t tx) UpsertAlias(ctx context.Context, a ports.Alias, now time.Time) error {
	return interpretError(ctx, t.q.UpsertAlias(ctx, sqlitedb.UpsertAliasParams(relstore.UpsertAliasOf[int64](a, now))))
}

func (t tx) GetAlias(ctx context.Context, id string) (ports.Alias, error) {
	row, err := t.q.GetAlias(ctx, id)
	return relstore.AliasColumns[int64](row).Alias(), interpretError(ctx, err)
}

func (t tx) ListAliases(ctx context.Context) ([]ports.Alias, error) {
	rows, err := t.q.ListAliases(ctx)
	return relstore.Pick(rows, func(r sqlitedb.Alias) ports.Alias { return relstore.AliasColumns[int64](r).Alias() }), interpretError(ctx, err)
}

func (t tx) DeleteAlias(ctx context.Context, id string) (bool, error) {
	n, err := t.q.DeleteAlias(ctx, id)
	return n > 0, interpretError(ctx, err)
}

func (t tx) ListAliasTargets(ctx context.Context, aliasID string) ([]ports.AliasTarget, error) {
	rows, err := t.q.ListAliasTargets(ctx, aliasID)
	return relstore.Pick(rows, func(r sqlitedb.AliasTarget) ports.AliasTarget { return relstore.AliasTargetColumns(r).Target() }), interpretError(ctx, err)
}

func (t tx) ListAllAliasTargets(ctx context.Context) (map[string][]ports.AliasTarget, error) {
	rows, err := t.q.ListAllAliasTargets(ctx)
	return relstore.TargetsByAlias(relstore.Pick(rows, func(r sqlitedb.AliasTarget) relstore.AliasTargetColumns { return relstore.AliasTargetColumns(r) })), interpretError(ctx, err)
}

func (t tx) DeleteAliasTargets(ctx context.Context, aliasID string) error {
	return interpretError(ctx, t.q.DeleteAliasTargets(ctx, aliasID))
}

func (t tx) InsertAliasTarget(ctx context.Context, aliasID string, position int, tg ports.AliasTarget) error {
	return interpretError(ctx, t.q.InsertAliasTarget(ctx, sqlitedb.InsertAliasTargetParams(relstore.AliasTargetOf(aliasID, position, tg))))
}

func healthColumns(r sqlitedb.RouteHealth) relstore.RouteHealthColumns[int64] {
	return relstore.RouteHealthColumns[int64](r)
}
