-- name: InsertRevokedSession :exec
INSERT INTO revoked_sessions (id, expires_at) VALUES ($1, $2)
ON CONFLICT (id) DO NOTHING;

-- name: CountRevokedSession :one
SELECT COUNT(*) FROM revoked_sessions WHERE id = $1;

-- name: DeleteRevokedSessionsBefore :exec
DELETE FROM revoked_sessions WHERE expires_at < $1;
