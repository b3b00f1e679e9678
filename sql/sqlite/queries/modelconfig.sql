-- name: UpsertModelConfig :exec
INSERT INTO model_configs (id, sort_order, display_name, group_name, enabled, provider_kind, base_url,
                           use_full_url, sealed_api_key, model_id, tooltip, reasoning_effort,
                           context_window_tokens, max_output_tokens, extra_params, custom_headers,
                           supports_images, supports_tools, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?19)
ON CONFLICT (id) DO UPDATE SET
    sort_order = excluded.sort_order, display_name = excluded.display_name,
    group_name = excluded.group_name, enabled = excluded.enabled,
    provider_kind = excluded.provider_kind, base_url = excluded.base_url,
    use_full_url = excluded.use_full_url, sealed_api_key = excluded.sealed_api_key,
    model_id = excluded.model_id, tooltip = excluded.tooltip,
    reasoning_effort = excluded.reasoning_effort,
    context_window_tokens = excluded.context_window_tokens,
    max_output_tokens = excluded.max_output_tokens, extra_params = excluded.extra_params,
    custom_headers = excluded.custom_headers, supports_images = excluded.supports_images,
    supports_tools = excluded.supports_tools, updated_at = excluded.updated_at;

-- name: GetModelConfig :one
SELECT * FROM model_configs WHERE id = ?1;

-- name: ListModelConfigs :many
SELECT * FROM model_configs ORDER BY sort_order, id;

-- name: DeleteModelConfig :execrows
DELETE FROM model_configs WHERE id = ?1;
