-- name: UpsertModelConfig :exec
INSERT INTO model_configs (id, sort_order, display_name, group_name, enabled, provider_id, model_id, tooltip,
                           reasoning_effort, context_window_tokens, max_output_tokens, extra_params,
                           supports_images, supports_tools, requests_per_minute, tokens_per_minute,
                           created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?17)
ON CONFLICT (id) DO UPDATE SET
    sort_order = excluded.sort_order, display_name = excluded.display_name,
    group_name = excluded.group_name, enabled = excluded.enabled, provider_id = excluded.provider_id,
    model_id = excluded.model_id, tooltip = excluded.tooltip,
    reasoning_effort = excluded.reasoning_effort,
    context_window_tokens = excluded.context_window_tokens,
    max_output_tokens = excluded.max_output_tokens, extra_params = excluded.extra_params,
    supports_images = excluded.supports_images, supports_tools = excluded.supports_tools,
    requests_per_minute = excluded.requests_per_minute, tokens_per_minute = excluded.tokens_per_minute,
    updated_at = excluded.updated_at;

-- name: GetModelConfig :one
SELECT m.id, m.sort_order, m.display_name, m.group_name, m.enabled, m.provider_id, m.model_id, m.tooltip,
       m.reasoning_effort, m.context_window_tokens, m.max_output_tokens, m.extra_params, m.supports_images,
       m.supports_tools, m.requests_per_minute, m.tokens_per_minute, m.created_at, m.updated_at,
       coalesce(p.provider_kind, '') AS provider_kind, coalesce(p.base_url, '') AS base_url,
       coalesce(p.use_full_url, FALSE) AS use_full_url, coalesce(p.custom_headers, 'null') AS custom_headers
FROM model_configs m LEFT JOIN providers p ON p.id = m.provider_id
WHERE m.id = ?1;

-- name: ListModelConfigs :many
SELECT m.id, m.sort_order, m.display_name, m.group_name, m.enabled, m.provider_id, m.model_id, m.tooltip,
       m.reasoning_effort, m.context_window_tokens, m.max_output_tokens, m.extra_params, m.supports_images,
       m.supports_tools, m.requests_per_minute, m.tokens_per_minute, m.created_at, m.updated_at,
       coalesce(p.provider_kind, '') AS provider_kind, coalesce(p.base_url, '') AS base_url,
       coalesce(p.use_full_url, FALSE) AS use_full_url, coalesce(p.custom_headers, 'null') AS custom_headers
FROM model_configs m LEFT JOIN providers p ON p.id = m.provider_id
ORDER BY m.sort_order, m.id;

-- name: DeleteModelConfig :execrows
DELETE FROM model_configs WHERE id = ?1;
