-- name: InsertRelayPayload :exec
INSERT INTO relay_inbox (key, payload, created_at) VALUES ($1, $2, $3);

-- name: NotifyRelay :exec
SELECT pg_notify('keygate_relay', sqlc.arg(key)::TEXT);

-- name: TakeRelayPayloads :many
DELETE FROM relay_inbox
WHERE seq IN (SELECT r.seq FROM relay_inbox r WHERE r.key = $1 ORDER BY r.seq FOR UPDATE SKIP LOCKED)
RETURNING seq, payload;

-- name: DropStaleRelayPayloads :execrows
DELETE FROM relay_inbox WHERE created_at < $1;
