package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/llm"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) UpsertModelConfig(ctx context.Context, c ports.ModelConfig, now time.Time) error {
	err := t.q.UpsertModelConfig(ctx, pgdb.UpsertModelConfigParams{
		ID: c.ID, SortOrder: int64(c.SortOrder), DisplayName: c.DisplayName, GroupName: c.GroupName,
		Enabled: c.Enabled, ProviderID: c.ProviderID, ModelID: c.ModelID, Tooltip: c.Tooltip,
		ReasoningEffort: c.ReasoningEffort, ContextWindowTokens: c.ContextWindowTokens,
		MaxOutputTokens: c.MaxOutputTokens, ExtraParams: string(relstore.JSONOrNull(c.ExtraParams)),
		SupportsImages: c.SupportsImages, SupportsTools: c.SupportsTools,
		RequestsPerMinute: c.RequestsPerMinute, TokensPerMinute: c.TokensPerMinute, CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) GetModelConfig(ctx context.Context, id string) (ports.ModelConfig, error) {
	row, err := t.q.GetModelConfig(ctx, id)
	return modelConfigFromRow(row), interpretError(ctx, err)
}

func (t tx) ListModelConfigs(ctx context.Context) ([]ports.ModelConfig, error) {
	rows, err := t.q.ListModelConfigs(ctx)
	out := make([]ports.ModelConfig, len(rows))
	for i, r := range rows {
		out[i] = modelConfigFromRow(pgdb.GetModelConfigRow(r))
	}
	return out, interpretError(ctx, err)
}

func (t tx) DeleteModelConfig(ctx context.Context, id string) (bool, error) {
	n, err := t.q.DeleteModelConfig(ctx, id)
	return n > 0, interpretError(ctx, err)
}

func modelConfigFromRow(r pgdb.GetModelConfigRow) ports.ModelConfig {
	return ports.ModelConfig{
		ID: r.ID, SortOrder: int(r.SortOrder), DisplayName: r.DisplayName, GroupName: r.GroupName,
		Enabled: r.Enabled, ProviderID: r.ProviderID, ProviderKind: llm.ProviderKind(r.ProviderKind), BaseURL: r.BaseUrl,
		UseFullURL: r.UseFullUrl, CustomHeaders: relstore.NullToNil([]byte(r.CustomHeaders)), ModelID: r.ModelID,
		Tooltip: r.Tooltip, ReasoningEffort: r.ReasoningEffort, ContextWindowTokens: r.ContextWindowTokens,
		MaxOutputTokens: r.MaxOutputTokens, ExtraParams: relstore.NullToNil([]byte(r.ExtraParams)),
		SupportsImages: r.SupportsImages, SupportsTools: r.SupportsTools,
		RequestsPerMinute: r.RequestsPerMinute, TokensPerMinute: r.TokensPerMinute,
		CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
	}
}
