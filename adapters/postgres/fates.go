package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// Fates of Tab suggestions: relstore builds and maps the rows
// (faterows.go), this file binds them to the generated queries.

func (t tx) UpsertTabFate(ctx context.Context, f ports.SuggestionFate) error {
	return interpretError(ctx, t.q.UpsertTabFate(ctx, pgdb.UpsertTabFateParams(relstore.TabFateOf[time.Time](f))))
}

func (t tx) ListTabFates(ctx context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error) {
	rows, err := t.q.ListTabFates(ctx, pgdb.ListTabFatesParams(relstore.FateWindowOf[time.Time](q)))
	return relstore.Pick(rows, func(r pgdb.TabFate) ports.SuggestionFate {
		return relstore.TabFateColumns[time.Time](r).SuggestionFate()
	}), interpretError(ctx, err)
}

func (t tx) DeleteTabFatesBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.DeleteTabFatesBefore(ctx, cutoff)
	return int(n), interpretError(ctx, err)
}
