-- name: InsertOwner :exec
INSERT INTO owners (kind, id, user_id, created_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (kind, id) DO NOTHING;

-- name: GetOwner :one
SELECT user_id FROM owners WHERE kind = $1 AND id = $2;

-- name: OwnedAmong :many
SELECT id FROM owners WHERE kind = $1 AND user_id = $2 AND id = ANY(sqlc.arg(ids)::TEXT[]);
