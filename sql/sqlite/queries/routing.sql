-- name: GetRouteHealth :many
-- subjects is a JSON array so the statement is prepared once
-- (conversation.sql).
SELECT * FROM route_health WHERE subject IN (SELECT value FROM json_each(sqlc.arg(subjects_json)));

-- name: RecordRouteFailure :one
INSERT INTO route_health (subject, cool_until, last_error, last_error_at, failures, auth_failures, updated_at)
VALUES (?1, ?2, ?3, ?4, 1, ?5, ?4)
ON CONFLICT (subject) DO UPDATE SET
    cool_until = max(route_health.cool_until, excluded.cool_until),
    last_error = excluded.last_error, last_error_at = excluded.last_error_at,
    failures = route_health.failures + 1, auth_failures = route_health.auth_failures + excluded.auth_failures,
    updated_at = excluded.updated_at
RETURNING *;

-- name: RecordRouteSuccess :exec
UPDATE route_health SET cool_until = 0, failures = 0, auth_failures = 0, updated_at = ?2 WHERE subject = ?1;

-- name: GetRouteAffinity :one
SELECT target_id FROM route_affinity WHERE conversation_id = ?1 AND route_id = ?2;

-- name: SetRouteAffinity :exec
INSERT INTO route_affinity (conversation_id, route_id, target_id, updated_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (conversation_id, route_id) DO UPDATE SET target_id = excluded.target_id, updated_at = excluded.updated_at;

-- name: UpsertAlias :exec
INSERT INTO aliases (id, sort_order, display_name, group_name, tooltip, enabled, strategy, first_token_timeout_ms,
                     created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
ON CONFLICT (id) DO UPDATE SET
    sort_order = excluded.sort_order, display_name = excluded.display_name, group_name = excluded.group_name,
    tooltip = excluded.tooltip, enabled = excluded.enabled, strategy = excluded.strategy,
    first_token_timeout_ms = excluded.first_token_timeout_ms, updated_at = excluded.updated_at;

-- name: GetAlias :one
SELECT * FROM aliases WHERE id = ?1;

-- name: ListAliases :many
SELECT * FROM aliases ORDER BY sort_order, id;

-- name: DeleteAlias :execrows
DELETE FROM aliases WHERE id = ?1;

-- name: ListAliasTargets :many
SELECT * FROM alias_targets WHERE alias_id = ?1 ORDER BY position;

-- name: ListAllAliasTargets :many
SELECT * FROM alias_targets ORDER BY alias_id, position;

-- name: DeleteAliasTargets :exec
DELETE FROM alias_targets WHERE alias_id = ?1;

-- name: InsertAliasTarget :exec
INSERT INTO alias_targets (alias_id, position, model_id, weight, drained) VALUES (?1, ?2, ?3, ?4, ?5);
