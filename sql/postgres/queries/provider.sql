-- name: UpsertProvider :exec
INSERT INTO providers (id, name, provider_kind, base_url, use_full_url, custom_headers, sealed_headers, region,
                       key_strategy, cool_down_ms, created_at, updated_at, cloud)
VALUES ($1, $2, $3, $4, $5, $6, $11, $7, $8, $9, $10, $10, $12)
ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, provider_kind = excluded.provider_kind, base_url = excluded.base_url,
    use_full_url = excluded.use_full_url, custom_headers = excluded.custom_headers,
    sealed_headers = excluded.sealed_headers, region = excluded.region,
    key_strategy = excluded.key_strategy, cool_down_ms = excluded.cool_down_ms, updated_at = excluded.updated_at,
    cloud = excluded.cloud;

-- name: GetProvider :one
SELECT * FROM providers WHERE id = $1;

-- name: ListProviders :many
SELECT * FROM providers ORDER BY name, id;

-- name: DeleteProvider :execrows
DELETE FROM providers WHERE id = $1;

-- name: CountProviderModels :one
SELECT count(*) FROM model_configs WHERE provider_id = $1;

-- name: UpsertProviderKey :exec
INSERT INTO provider_keys (id, provider_id, position, sealed_key, weight, enabled, disabled_reason,
                           created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
ON CONFLICT (id) DO UPDATE SET
    position = excluded.position, sealed_key = excluded.sealed_key, weight = excluded.weight,
    enabled = excluded.enabled, disabled_reason = excluded.disabled_reason, updated_at = excluded.updated_at
WHERE provider_keys.provider_id = excluded.provider_id;

-- name: GetProviderKeyOwner :one
SELECT provider_id FROM provider_keys WHERE id = $1;

-- name: ListProviderKeys :many
SELECT * FROM provider_keys WHERE provider_id = $1 ORDER BY position, id;

-- name: ListAllProviderKeys :many
SELECT * FROM provider_keys ORDER BY provider_id, position, id;

-- name: DeleteProviderKey :exec
DELETE FROM provider_keys WHERE id = $1;

-- name: SetProviderKeyEnabled :execrows
UPDATE provider_keys SET enabled = $3, disabled_reason = $4, updated_at = $5 WHERE provider_id = $1 AND id = $2;
