package control

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"keygate/ports"
)

// MaxCursorModel bounds a mapped Cursor model id, in bytes.
const MaxCursorModel = 200

// mapped is the Keygate model or alias a Cursor model id is mapped onto:
// ok false when id is not mapped (or there is no mapping store). A store
// error is returned as is.
func mapped(ctx context.Context, store ports.ModelMappingStore, id string) (string, bool, error) {
	if store == nil || id == "" {
		return "", false, nil
	}
	m, err := store.ModelMapping(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return m.Target, true, nil
}

// MapWith makes Serves and Mapped honour the mappings of Cursor's model
// ids in store (nil: none).
func (pb *Publishing) MapWith(store ports.ModelMappingStore) { pb.mappings = store }

// Mapped returns the display name of the Keygate model or alias each
// mapped Cursor model id runs on, for the picker to say so; a mapping
// whose target is gone or disabled is left out (its turns go to Cursor).
func (pb *Publishing) Mapped(ctx context.Context) (map[string]string, error) {
	if pb.mappings == nil {
		return nil, nil
	}
	ms, err := pb.mappings.ModelMappings(ctx)
	if err != nil {
		return nil, fmt.Errorf("list model mappings: %w", err)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	published, err := pb.Published(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(published))
	for _, c := range published {
		names[c.ID] = c.DisplayName
	}
	out := map[string]string{}
	for _, m := range ms {
		if name, ok := names[m.Target]; ok {
			out[m.CursorModel] = name
		}
	}
	return out, nil
}

// Mappings is the console's use case over the mappings of Cursor's model
// ids onto Keygate models and aliases.
type Mappings struct {
	store   ports.ModelMappingStore
	models  ports.ModelConfigStore
	aliases ports.AliasStore
}

// NewMappings returns the mapping use case (aliases nil: none).
func NewMappings(store ports.ModelMappingStore, models ports.ModelConfigStore, aliases ports.AliasStore) *Mappings {
	return &Mappings{store: store, models: models, aliases: aliases}
}

// List returns every mapping by Cursor model id.
func (m *Mappings) List(ctx context.Context) ([]ports.ModelMapping, error) {
	return m.store.ModelMappings(ctx)
}

// Set maps cursorModel (any string but a Keygate model or alias id, at
// most MaxCursorModel bytes) onto target, a configured model or alias,
// replacing an earlier mapping of it.
func (m *Mappings) Set(ctx context.Context, cursorModel, target string) (ports.ModelMapping, error) {
	cursorModel = strings.TrimSpace(cursorModel)
	if cursorModel == "" {
		return ports.ModelMapping{}, invalid("cursor_model", "required: the model id Cursor sends, for example gpt-5 or default")
	}
	if err := checkText("cursor_model", cursorModel, MaxCursorModel); err != nil {
		return ports.ModelMapping{}, err
	}
	own, err := m.known(ctx, cursorModel)
	if err != nil {
		return ports.ModelMapping{}, err
	}
	if own {
		return ports.ModelMapping{}, invalid("cursor_model", "is a Keygate model or alias already; it needs no mapping")
	}
	known, err := m.known(ctx, target)
	if err != nil {
		return ports.ModelMapping{}, err
	}
	if !known {
		return ports.ModelMapping{}, invalid("target", "names no configured model or alias")
	}
	if err := m.store.PutModelMapping(ctx, ports.ModelMapping{CursorModel: cursorModel, Target: target}); err != nil {
		return ports.ModelMapping{}, err
	}
	return m.store.ModelMapping(ctx, cursorModel)
}

// Delete removes the mapping of cursorModel, or returns ports.ErrNotFound.
func (m *Mappings) Delete(ctx context.Context, cursorModel string) error {
	return m.store.DeleteModelMapping(ctx, cursorModel)
}

// known reports whether id is a configured model or alias.
func (m *Mappings) known(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	_, err := m.models.ModelConfig(ctx, id)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, ports.ErrNotFound) {
		return false, err
	}
	if m.aliases == nil {
		return false, nil
	}
	_, err = m.aliases.Alias(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
