package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// Fates of Tab suggestions: relstore builds and maps the rows
// (faterows.go), this file binds them to the generated queries.

func (t tx) UpsertTabFate(ctx context.Context, f ports.SuggestionFate) error {
	return interpretError(ctx, t.q.UpsertTabFate(ctx, sqlitedb.UpsertTabFateParams(relstore.TabFateOf[int64](f))))
}

func (t tx) ListTabFates(ctx context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error) {
	rows, err := t.q.ListTabFates(ctx, sqlitedb.ListTabFatesParams(relstore.FateWindowOf[int64](q)))
	return relstore.Pick(rows, func(r sqlitedb.TabFate) ports.SuggestionFate {
		return relstore.TabFateColumns[int64](r).SuggestionFate()
	}), interpretError(ctx, err)
}

func (t tx) DeleteTabFatesBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.DeleteTabFatesBefore(ctx, ms(cutoff))
	return int(n), interpretError(ctx, err)
}
