package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// Providers, their keys and model configurations: relstore builds and maps
// the rows (providerrows.go), this file binds them to the generated
// queries.

func (t tx) UpsertProvider(ctx context.Context, p ports.Provider, now time.Time) error {
	return interpretError(ctx, t.q.UpsertProvider(ctx, pgdb.UpsertProviderParams(relstore.UpsertProviderOf[time.Time](p, now))))
}

func (t tx) GetProvider(ctx context.Context, id string) (ports.Provider, error) {
	row, err := t.q.GetProvider(ctx, id)
	return relstore.ProviderColumns[time.Time](row).Provider(), interpretError(ctx, err)
}

func (t tx) ListProviders(ctx context.Context) ([]ports.Provider, error) {
	rows, err := t.q.ListProviders(ctx)
	return relstore.Pick(rows, func(r pgdb.Provider) ports.Provider { return relstore.ProviderColumns[time.Time](r).Provider() }), interpretError(ctx, err)
}

func (t tx) DeleteProvider(ctx context.Context, id string) (bool, error) {
	n, err := t.q.DeleteProvider(ctx, id)
	return n > 0, interpretError(ctx, err)
}

func (t tx) CountProviderModels(ctx context.Context, id string) (int, error) {
	n, err := t.q.CountProviderModels(ctx, id)
	return int(n), interpretError(ctx, err)
}

func (t tx) UpsertProviderKey(ctx context.Context, providerID string, k ports.ProviderKey, now time.Time) error {
	return interpretError(ctx, t.q.UpsertProviderKey(ctx, pgdb.UpsertProviderKeyParams(relstore.UpsertProviderKeyOf[time.Time](providerID, k, now))))
}

func (t tx) ProviderKeyOwner(ctx context.Context, keyID string) (string, error) {
	owner, err := t.q.GetProviderKeyOwner(ctx, keyID)
	return owner, interpretError(ctx, err)
}

func (t tx) ListProviderKeys(ctx context.Context, providerID string) ([]ports.ProviderKey, error) {
	rows, err := t.q.ListProviderKeys(ctx, providerID)
	return relstore.Pick(rows, func(r pgdb.ProviderKey) ports.ProviderKey { return keyColumns(r).Key() }), interpretError(ctx, err)
}

func (t tx) ListAllProviderKeys(ctx context.Context) (map[string][]ports.ProviderKey, error) {
	rows, err := t.q.ListAllProviderKeys(ctx)
	return relstore.KeysByProvider(relstore.Pick(rows, keyColumns)), interpretError(ctx, err)
}

func (t tx) DeleteProviderKey(ctx context.Context, keyID string) error {
	return interpretError(ctx, t.q.DeleteProviderKey(ctx, keyID))
}

func (t tx) SetProviderKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string, now time.Time) (bool, error) {
	n, err := t.q.SetProviderKeyEnabled(ctx, pgdb.SetProviderKeyEnabledParams{
		ProviderID: providerID, ID: keyID, Enabled: enabled, DisabledReason: reason, UpdatedAt: now})
	return n > 0, interpretError(ctx, err)
}

func keyColumns(r pgdb.ProviderKey) relstore.ProviderKeyColumns[time.Time] {
	return relstore.ProviderKeyColumns[time.Time](r)
}

func (t tx) UpsertModelConfig(ctx context.Context, c ports.ModelConfig, now time.Time) error {
	return interpretError(ctx, t.q.UpsertModelConfig(ctx, pgdb.UpsertModelConfigParams(relstore.UpsertModelConfigOf[time.Time](c, now))))
}

func (t tx) GetModelConfig(ctx context.Context, id string) (ports.ModelConfig, error) {
	row, err := t.q.GetModelConfig(ctx, id)
	return relstore.ModelConfigColumns[time.Time](row).Config(), interpretError(ctx, err)
}

func (t tx) ListModelConfigs(ctx context.Context) ([]ports.ModelConfig, error) {
	rows, err := t.q.ListModelConfigs(ctx)
	return relstore.Pick(rows, func(r pgdb.ListModelConfigsRow) ports.ModelConfig {
		return relstore.ModelConfigColumns[time.Time](r).Config()
	}), interpretError(ctx, err)
}

func (t tx) DeleteModelConfig(ctx context.Context, id string) (bool, error) {
	n, err := t.q.DeleteModelConfig(ctx, id)
	return n > 0, interpretError(ctx, err)
}
