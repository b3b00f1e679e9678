-- name: ReserveRelayBytes :one
-- Adds bytes to the owner's waiting total and returns the new total; the
-- row stays locked until the transaction ends, so one owner's forwards
-- check their bound one after another.
INSERT INTO relay_usage (owner, bytes) VALUES (sqlc.arg(owner), sqlc.arg(bytes)::BIGINT)
ON CONFLICT (owner) DO UPDATE SET bytes = relay_usage.bytes + EXCLUDED.bytes
RETURNING bytes;

-- name: RelayBytes :one
SELECT coalesce(sum(bytes), 0)::BIGINT AS total FROM relay_usage;

-- name: InsertRelayPayload :exec
INSERT INTO relay_inbox (key, owner, size, payload, created_at) VALUES ($1, $2, $3, $4, $5);

-- name: NotifyRelay :exec
SELECT pg_notify('keygate_relay', sqlc.arg(key)::TEXT);

-- name: TakeRelayPayloads :many
WITH taken AS (
    DELETE FROM relay_inbox
    WHERE seq IN (SELECT r.seq FROM relay_inbox r WHERE r.key = $1 ORDER BY r.seq FOR UPDATE SKIP LOCKED)
    RETURNING seq, payload, owner, size
), freed AS (
    UPDATE relay_usage u SET bytes = u.bytes - t.total
    FROM (SELECT owner, sum(size)::BIGINT AS total FROM taken GROUP BY owner) t
    WHERE u.owner = t.owner
)
SELECT seq, payload FROM taken;

-- name: DropStaleRelayPayloads :one
WITH dropped AS (
    DELETE FROM relay_inbox WHERE created_at < $1
    RETURNING owner, size
), freed AS (
    UPDATE relay_usage u SET bytes = u.bytes - t.total
    FROM (SELECT owner, sum(size)::BIGINT AS total FROM dropped GROUP BY owner) t
    WHERE u.owner = t.owner
)
SELECT count(*) AS dropped FROM dropped;

-- name: DropEmptyRelayUsage :exec
DELETE FROM relay_usage WHERE bytes <= 0;
