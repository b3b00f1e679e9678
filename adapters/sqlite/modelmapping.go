package sqlite

import (
	"context"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// Cursor's model ids mapped onto Keygate models: relstore builds and maps
// the rows (modelmapping.go), this file binds them to the generated
// queries.

func (t tx) ListModelMappings(ctx context.Context) ([]ports.ModelMapping, error) {
	rows, err := t.q.ListModelMappings(ctx)
	return relstore.Pick(rows, func(r sqlitedb.ModelMapping) ports.ModelMapping {
		return relstore.ModelMappingColumns[int64](r).ModelMapping()
	}), interpretError(ctx, err)
}

func (t tx) GetModelMapping(ctx context.Context, cursorModel string) (ports.ModelMapping, error) {
	r, err := t.q.GetModelMapping(ctx, cursorModel)
	if err != nil {
		return ports.ModelMapping{}, interpretError(ctx, err)
	}
	return relstore.ModelMappingColumns[int64](r).ModelMapping(), nil
}

func (t tx) UpsertModelMapping(ctx context.Context, m ports.ModelMapping) error {
	return interpretError(ctx, t.q.UpsertModelMapping(ctx, sqlitedb.UpsertModelMappingParams(relstore.ModelMappingOf[int64](m))))
}

func (t tx) DeleteModelMapping(ctx context.Context, cursorModel string) (bool, error) {
	n, err := t.q.DeleteModelMapping(ctx, cursorModel)
	return n > 0, interpretError(ctx, err)
}
