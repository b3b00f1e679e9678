package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// ModelMappings implements ports.ModelMappingStore.
type ModelMappings struct{ s *Store }

var _ ports.ModelMappingStore = ModelMappings{}

// errMappingKey: a mapping needs both its Cursor model id and its target;
// a mistake of the caller, not of the store.
var errMappingKey = errors.New("a model mapping needs a Cursor model id and a target")

type modelMappingRows interface {
	// ListModelMappings returns every mapping by CursorModel.
	ListModelMappings(ctx context.Context) ([]ports.ModelMapping, error)
	// GetModelMapping returns one mapping, or ports.ErrNotFound.
	GetModelMapping(ctx context.Context, cursorModel string) (ports.ModelMapping, error)
	// UpsertModelMapping creates or replaces a mapping, keeping CreatedAt.
	UpsertModelMapping(ctx context.Context, m ports.ModelMapping) error
	// DeleteModelMapping reports whether the mapping was there.
	DeleteModelMapping(ctx context.Context, cursorModel string) (bool, error)
}

// ModelMappings implements ports.ModelMappingStore.
func (st ModelMappings) ModelMappings(ctx context.Context) ([]ports.ModelMapping, error) {
	var out []ports.ModelMapping
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListModelMappings(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list model mappings: %w", err)
	}
	return out, nil
}

// ModelMapping implements ports.ModelMappingStore.
func (st ModelMappings) ModelMapping(ctx context.Context, cursorModel string) (ports.ModelMapping, error) {
	var m ports.ModelMapping
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		m, err = tx.GetModelMapping(ctx, cursorModel)
		return err
	})
	if err != nil {
		return ports.ModelMapping{}, fmt.Errorf("read model mapping %q: %w", cursorModel, err)
	}
	return m, nil
}

// PutModelMapping implements ports.ModelMappingStore.
func (st ModelMappings) PutModelMapping(ctx context.Context, m ports.ModelMapping) error {
	if m.CursorModel == "" || m.Target == "" {
		return fmt.Errorf("put model mapping: %w", errMappingKey)
	}
	m.CreatedAt = st.s.now().UTC().Truncate(time.Millisecond)
	m.UpdatedAt = m.CreatedAt
	if err := st.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertModelMapping(ctx, m) }); err != nil {
		return fmt.Errorf("put model mapping %q: %w", m.CursorModel, err)
	}
	return nil
}

// DeleteModelMapping implements ports.ModelMappingStore.
func (st ModelMappings) DeleteModelMapping(ctx context.Context, cursorModel string) error {
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteModelMapping(ctx, cursorModel)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete model mapping %q: %w", cursorModel, err)
	}
	return nil
}

// ModelMappingColumns is a model_mappings row (sqlc's ModelMapping and
// UpsertModelMappingParams), T the engine's [Stamp].
type ModelMappingColumns[T Stamp] struct {
	CursorModel string
	Target      string
	CreatedAt   T
	UpdatedAt   T
}

// ModelMappingOf is how m is stored.
func ModelMappingOf[T Stamp](m ports.ModelMapping) ModelMappingColumns[T] {
	return ModelMappingColumns[T]{CursorModel: m.CursorModel, Target: m.Target, CreatedAt: StampOf[T](m.CreatedAt), UpdatedAt: StampOf[T](m.UpdatedAt)}
}

// ModelMapping maps the row.
func (r ModelMappingColumns[T]) ModelMapping() ports.ModelMapping {
	return ports.ModelMapping{CursorModel: r.CursorModel, Target: r.Target, CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt)}
}
