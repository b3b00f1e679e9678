-- name: ListModelMappings :many
SELECT cursor_model, target, created_at, updated_at FROM model_mappings ORDER BY cursor_model;

-- name: GetModelMapping :one
SELECT cursor_model, target, created_at, updated_at FROM model_mappings WHERE cursor_model = sqlc.arg(cursor_model);

-- name: UpsertModelMapping :exec
-- A replacement keeps created_at.
INSERT INTO model_mappings (cursor_model, target, created_at, updated_at)
VALUES (sqlc.arg(cursor_model), sqlc.arg(target), sqlc.arg(created_at), sqlc.arg(updated_at))
ON CONFLICT (cursor_model) DO UPDATE SET target = excluded.target, updated_at = excluded.updated_at;

-- name: DeleteModelMapping :execrows
DELETE FROM model_mappings WHERE cursor_model = sqlc.arg(cursor_model);
