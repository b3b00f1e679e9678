package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) UpsertProvider(ctx context.Context, p ports.Provider, now time.Time) error {
	err := t.q.UpsertProvider(ctx, pgdb.UpsertProviderParams{
		ID: p.ID, Name: p.Name, ProviderKind: string(p.Kind), BaseUrl: p.BaseURL, UseFullUrl: p.UseFullURL,
		CustomHeaders: string(relstore.JSONOrNull(p.ClearHeaders)), SealedHeaders: relstore.NonNil(p.SealedHeaders), Region: p.Region,
		KeyStrategy: relstore.NameOf(p.KeyStrategy), CoolDownMs: p.CoolDown.Milliseconds(), CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) GetProvider(ctx context.Context, id string) (ports.Provider, error) {
	row, err := t.q.GetProvider(ctx, id)
	return providerFromRow(row), interpretError(ctx, err)
}

func (t tx) ListProviders(ctx context.Context) ([]ports.Provider, error) {
	rows, err := t.q.ListProviders(ctx)
	out := make([]ports.Provider, len(rows))
	for i, r := range rows {
		out[i] = providerFromRow(r)
	}
	return out, interpretError(ctx, err)
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
	err := t.q.UpsertProviderKey(ctx, pgdb.UpsertProviderKeyParams{
		ID: k.ID, ProviderID: providerID, Position: int64(k.Position), SealedKey: relstore.NonNil(k.Sealed),
		Weight: int64(k.Weight), Enabled: k.Enabled, DisabledReason: k.DisabledReason, CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) ProviderKeyOwner(ctx context.Context, keyID string) (string, error) {
	owner, err := t.q.GetProviderKeyOwner(ctx, keyID)
	return owner, interpretError(ctx, err)
}

func (t tx) ListProviderKeys(ctx context.Context, providerID string) ([]ports.ProviderKey, error) {
	rows, err := t.q.ListProviderKeys(ctx, providerID)
	out := make([]ports.ProviderKey, len(rows))
	for i, r := range rows {
		out[i] = providerKeyFromRow(r)
	}
	return out, interpretError(ctx, err)
}

func (t tx) ListAllProviderKeys(ctx context.Context) (map[string][]ports.ProviderKey, error) {
	rows, err := t.q.ListAllProviderKeys(ctx)
	out := map[string][]ports.ProviderKey{}
	for _, r := range rows {
		out[r.ProviderID] = append(out[r.ProviderID], providerKeyFromRow(r))
	}
	return out, interpretError(ctx, err)
}

func (t tx) DeleteProviderKey(ctx context.Context, keyID string) error {
	return interpretError(ctx, t.q.DeleteProviderKey(ctx, keyID))
}

func (t tx) SetProviderKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string, now time.Time) (bool, error) {
	n, err := t.q.SetProviderKeyEnabled(ctx, pgdb.SetProviderKeyEnabledParams{
		ProviderID: providerID, ID: keyID, Enabled: enabled, DisabledReason: reason, UpdatedAt: now})
	return n > 0, interpretError(ctx, err)
}

func providerFromRow(r pgdb.Provider) ports.Provider {
	return ports.Provider{
		ID: r.ID, Name: r.Name, Kind: llm.ProviderKind(r.ProviderKind), BaseURL: r.BaseUrl, UseFullURL: r.UseFullUrl,
		ClearHeaders: relstore.NullToNil([]byte(r.CustomHeaders)), SealedHeaders: relstore.EmptyToNil(r.SealedHeaders), Region: r.Region,
		KeyStrategy: routing.ParseKeyStrategy(r.KeyStrategy), CoolDown: time.Duration(r.CoolDownMs) * time.Millisecond,
		CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}

func providerKeyFromRow(r pgdb.ProviderKey) ports.ProviderKey {
	return ports.ProviderKey{
		ID: r.ID, Position: int(r.Position), Sealed: r.SealedKey, Weight: int(r.Weight), Enabled: r.Enabled,
		DisabledReason: r.DisabledReason, CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}
