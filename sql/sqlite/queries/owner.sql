-- name: InsertOwner :exec
INSERT INTO owners (kind, id, user_id, created_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (kind, id) DO NOTHING;

-- name: GetOwner :one
SELECT user_id FROM owners WHERE kind = ?1 AND id = ?2;

-- name: OwnedAmong :many
-- ids is a JSON array so the statement is prepared once (conversation.sql);
-- the unary + has each id looked up by the primary key instead of the
-- user's every row scanned.
SELECT id FROM owners WHERE kind = sqlc.arg(kind) AND +user_id = sqlc.arg(user_id)
  AND id IN (SELECT value FROM json_each(sqlc.arg(ids_json)));
