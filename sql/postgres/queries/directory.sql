-- name: InsertDirectoryEntry :exec
INSERT INTO directory_entries (kind, id, name, name_key, external_id, active, members, attributes, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: UpdateDirectoryEntry :execrows
UPDATE directory_entries SET name = $3, name_key = $4, external_id = $5, active = $6, members = $7, attributes = $8, updated_at = $9
WHERE kind = $1 AND id = $2;

-- name: GetDirectoryEntry :one
SELECT kind, id, name, external_id, active, members, attributes, created_at, updated_at
FROM directory_entries WHERE kind = $1 AND id = $2;

-- name: ListDirectoryEntries :many
SELECT kind, id, name, external_id, active, members, attributes, created_at, updated_at
FROM directory_entries WHERE kind = $1 ORDER BY created_at, id LIMIT sqlc.arg(max_rows)::BIGINT;

-- name: DeleteDirectoryEntry :execrows
DELETE FROM directory_entries WHERE kind = $1 AND id = $2;

-- name: UpsertUserCutoff :exec
INSERT INTO user_cutoffs (user_id, blocked, cut_at) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET blocked = excluded.blocked,
    cut_at = CASE WHEN excluded.blocked THEN GREATEST(user_cutoffs.cut_at, excluded.cut_at) ELSE user_cutoffs.cut_at END;

-- name: GetUserCutoff :one
SELECT blocked, cut_at FROM user_cutoffs WHERE user_id = $1;
