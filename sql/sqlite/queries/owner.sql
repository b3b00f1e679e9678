-- name: InsertOwner :exec
INSERT INTO owners (kind, id, user_id, created_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (kind, id) DO NOTHING;

-- name: GetOwner :one
SELECT user_id FROM owners WHERE kind = ?1 AND id = ?2;

-- name: OwnedAmong :many
SELECT id FROM owners WHERE kind = sqlc.arg(kind) AND user_id = sqlc.arg(user_id) AND id IN (sqlc.slice(ids));
