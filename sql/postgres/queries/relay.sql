-- name: ForwardRelayPayload :one
-- Stores one forwarded payload in one statement (one round trip): a late
-- payload (the key's stream ended and it does not open a turn) is not
-- stored; otherwise the owner's total is raised unless that would pass
-- max_owner (the owner's row stays locked to the end of the statement, so
-- one owner's forwards check their bound one after another) or everyone's
-- would pass max_all; then the payload is inserted and its key notified.
WITH state AS (
    SELECT (sqlc.arg(opens)::BOOLEAN
        OR NOT coalesce((SELECT l.ended FROM relay_leases l WHERE l.key = sqlc.arg(key)), false))::BOOLEAN AS live,
        coalesce((SELECT u.bytes FROM relay_usage u WHERE u.owner = sqlc.arg(owner)), 0)::BIGINT AS mine,
        coalesce((SELECT sum(u.bytes) FROM relay_usage u), 0)::BIGINT AS total
), reserved AS (
    INSERT INTO relay_usage AS u (owner, bytes)
    SELECT sqlc.arg(owner), sqlc.arg(size)::BIGINT FROM state
    WHERE state.live AND state.total + sqlc.arg(size)::BIGINT <= sqlc.arg(max_all)::BIGINT
      AND sqlc.arg(size)::BIGINT <= sqlc.arg(max_owner)::BIGINT
    ON CONFLICT (owner) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes
    WHERE u.bytes + EXCLUDED.bytes <= sqlc.arg(max_owner)::BIGINT
    RETURNING u.bytes
), stored AS (
    INSERT INTO relay_inbox (key, owner, size, payload, created_at, opens)
    SELECT sqlc.arg(key), sqlc.arg(owner), sqlc.arg(size)::BIGINT, sqlc.arg(payload)::BYTEA, now(), sqlc.arg(opens)::BOOLEAN
    FROM reserved
    RETURNING seq
), opened AS (
    UPDATE relay_leases l SET ended = false
    WHERE l.key = sqlc.arg(key) AND l.ended AND sqlc.arg(opens)::BOOLEAN AND EXISTS (SELECT 1 FROM stored)
), notified AS (
    SELECT pg_notify('keygate_relay', sqlc.arg(key)::TEXT) AS n FROM stored
)
SELECT state.live, state.mine, state.total,
    (SELECT count(*) FROM notified)::BIGINT AS stored
FROM state;

-- name: TakeRelayPayloads :many
-- Takes key's waiting payloads for the lease token holds, nothing once
-- the lease is stale. Until the lease settled (keep), they stay, marked
-- taken by token, until SettleRelayPayloads or the lease's release, and go
-- again, in order, to a later lease when this one goes stale without
-- either (its owner died before the turn's first commit); once settled
-- they are deleted as taken.
WITH cand AS (
    SELECT r.seq, r.opens FROM relay_inbox r
    WHERE r.key = sqlc.arg(key) AND (r.taken_by IS NULL OR r.taken_by < sqlc.arg(token)::BIGINT) AND EXISTS (
        SELECT 1 FROM relay_leases l
        WHERE l.key = sqlc.arg(key) AND l.token = sqlc.arg(token) AND l.held AND l.expires_at > now())
    ORDER BY r.seq FOR UPDATE SKIP LOCKED
), taken AS (
    DELETE FROM relay_inbox
    WHERE seq IN (SELECT seq FROM cand WHERE NOT sqlc.arg(keep)::BOOLEAN)
    RETURNING seq, payload, owner, size
), kept AS (
    UPDATE relay_inbox SET taken_by = sqlc.arg(token)::BIGINT
    WHERE seq IN (SELECT seq FROM cand WHERE sqlc.arg(keep)::BOOLEAN)
    RETURNING seq, payload
), freed AS (
    UPDATE relay_usage u SET bytes = u.bytes - t.total
    FROM (SELECT owner, sum(size)::BIGINT AS total FROM taken GROUP BY owner) t
    WHERE u.owner = t.owner
)
SELECT seq, payload FROM taken
UNION ALL
SELECT seq, payload FROM kept;

-- name: SettleRelayPayloads :exec
-- Drops the payloads token's lease took: their turn committed.
WITH settled AS (
    DELETE FROM relay_inbox
    WHERE key = sqlc.arg(key) AND taken_by = sqlc.arg(token)::BIGINT
    RETURNING owner, size
)
UPDATE relay_usage u SET bytes = u.bytes - t.total
FROM (SELECT owner, sum(size)::BIGINT AS total FROM settled GROUP BY owner) t
WHERE u.owner = t.owner;

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

-- name: AcquireRelayLease :one
-- Takes key's lease for holder unless another live lease holds it; no row
-- then. A lease is live while unexpired and while its holder's session
-- keeps holder_lock (taking the lock here for the transaction succeeds
-- only once that session ended: the holder died). The token comes from
-- one sequence, so it grows across every lease of the key, swept rows
-- included.
INSERT INTO relay_leases AS l (key, token, holder, held, expires_at, holder_lock)
VALUES (sqlc.arg(key), nextval('relay_lease_tokens'), sqlc.arg(holder), true, now() + make_interval(secs => sqlc.arg(ttl)::FLOAT8), sqlc.arg(holder_lock)::BIGINT)
ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder, held = true,
    expires_at = EXCLUDED.expires_at, watched_until = '-infinity', released_at = NULL, holder_lock = EXCLUDED.holder_lock,
    taken_over = l.held
WHERE NOT l.held OR l.expires_at <= now() OR (l.holder_lock <> 0 AND pg_try_advisory_xact_lock(l.holder_lock))
RETURNING l.token, l.ended, l.taken_over;

-- name: RenewRelayLeases :many
-- Renews the leases still held by their tokens; a lease left out of the
-- result is lost.
UPDATE relay_leases l SET expires_at = now() + make_interval(secs => sqlc.arg(ttl)::FLOAT8), holder_lock = sqlc.arg(holder_lock)::BIGINT
FROM (SELECT unnest(sqlc.arg(keys)::TEXT[]) AS key, unnest(sqlc.arg(tokens)::BIGINT[]) AS token) r
WHERE l.key = r.key AND l.token = r.token AND l.held AND l.expires_at > now()
RETURNING l.key, (l.watched_until > now())::BOOLEAN AS watched;

-- name: ReleaseRelayLease :exec
-- Ends a lease and drops the payloads it took (delivered to a live
-- owner, which either ran their turn or handed them over); with
-- ended, payloads waiting for the key that do not open a turn are dropped
-- as late. It wakes the key's followers (NOTIFY 'output <key>').
WITH released AS (
    UPDATE relay_leases l SET held = false, ended = sqlc.arg(ended)::BOOLEAN, released_at = now()
    WHERE l.key = sqlc.arg(key) AND l.token = sqlc.arg(token) AND l.held
    RETURNING l.key
), dropped AS (
    DELETE FROM relay_inbox i
    WHERE i.key IN (SELECT key FROM released)
      AND (i.taken_by = sqlc.arg(token)::BIGINT OR (sqlc.arg(ended)::BOOLEAN AND NOT i.opens AND i.taken_by IS NULL))
    RETURNING owner, size
), freed AS (
    UPDATE relay_usage u SET bytes = u.bytes - t.total
    FROM (SELECT owner, sum(size)::BIGINT AS total FROM dropped GROUP BY owner) t
    WHERE u.owner = t.owner
)
SELECT pg_notify('keygate_relay', 'output ' || key) FROM released;

-- name: OpenRelayLease :exec
UPDATE relay_leases SET ended = false WHERE key = $1 AND token = $2 AND held;

-- name: PublishRelayOutput :one
-- Appends frames to the output of key's lease token, only while that lease
-- holds the key (fencing), and wakes the key's followers (NOTIFY 'output
-- <key>') when it stored any; returns how many it stored. notified is
-- selected so that the notify runs: PostgreSQL skips a SELECT in WITH that
-- nothing reads.
WITH published AS (
    INSERT INTO relay_output (key, token, seq, frame, is_end, created_at)
    SELECT sqlc.arg(key), sqlc.arg(token)::BIGINT, o.seq, o.frame, o.is_end, now()
    FROM (SELECT unnest(sqlc.arg(seqs)::BIGINT[]) AS seq, unnest(sqlc.arg(frames)::BYTEA[]) AS frame,
        unnest(sqlc.arg(ends)::BOOLEAN[]) AS is_end) o
    WHERE EXISTS (
        SELECT 1 FROM relay_leases l
        WHERE l.key = sqlc.arg(key) AND l.token = sqlc.arg(token)::BIGINT AND l.held AND l.expires_at > now())
    ON CONFLICT DO NOTHING
    RETURNING 1
), counted AS (
    SELECT count(*)::BIGINT AS n FROM published
), notified AS (
    SELECT pg_notify('keygate_relay', 'output ' || sqlc.arg(key)::TEXT) AS n FROM counted WHERE counted.n > 0
)
SELECT counted.n AS published, (SELECT count(*) FROM notified)::BIGINT AS notified
FROM counted;

-- name: WatchRelayLease :one
-- A follower's read: marks the key watched for ttl while it is held and
-- says which lease's output to read. A lease whose holder's session ended
-- (its advisory lock is free) is not held.
WITH st AS (
    SELECT l.key, l.token, l.watched_until,
        (l.held AND l.expires_at > now()
            AND NOT (l.holder_lock <> 0 AND pg_try_advisory_xact_lock(l.holder_lock)))::BOOLEAN AS held
    FROM relay_leases l WHERE l.key = sqlc.arg(key)
), watched AS (
    UPDATE relay_leases l SET watched_until = now() + make_interval(secs => sqlc.arg(ttl)::FLOAT8)
    FROM st WHERE l.key = st.key AND l.token = st.token AND st.held
        AND st.watched_until < now() + make_interval(secs => sqlc.arg(ttl)::FLOAT8 / 2)
)
SELECT st.token, st.held FROM st;

-- name: RelayOutputAfter :many
SELECT seq, frame, is_end FROM relay_output
WHERE key = sqlc.arg(key) AND token = sqlc.arg(token) AND seq > sqlc.arg(after)
ORDER BY seq LIMIT sqlc.arg(max_frames);

-- name: DropRelayOutput :exec
-- Output of leases that are over: replaced by a newer lease, released or
-- expired before the cutoff, or whose lease row is gone. A held lease's
-- output stays whole, however old: a follower replays it from the start.
DELETE FROM relay_output o
WHERE NOT EXISTS (SELECT 1 FROM relay_leases l WHERE l.key = o.key)
   OR EXISTS (SELECT 1 FROM relay_leases l WHERE l.key = o.key AND (l.token > o.token
       OR ((NOT l.held OR l.expires_at <= now()) AND coalesce(l.released_at, l.expires_at) < sqlc.arg(cutoff)::TIMESTAMPTZ)));

-- name: DropIdleRelayLeases :exec
-- Leases released or expired before the cutoff; their tokens stay used.
DELETE FROM relay_leases l
WHERE (NOT l.held OR l.expires_at <= now()) AND coalesce(l.released_at, l.expires_at) < sqlc.arg(cutoff)::TIMESTAMPTZ;

-- name: NotifyRelayWatch :exec
-- Tells the key's holder at once that a follower reads its output.
SELECT pg_notify('keygate_relay', 'watch ' || sqlc.arg(key)::TEXT);

-- name: KeepRelayPayload :execrows
-- Stores a payload that reached the holder of token's lease directly as
-- taken by it, while that lease holds the key: it is handed over, or
-- dropped, like one the lease took from the mailbox.
WITH stored AS (
    INSERT INTO relay_inbox (key, owner, size, payload, created_at, opens, taken_by)
    SELECT sqlc.arg(key), sqlc.arg(owner), sqlc.arg(size)::BIGINT, sqlc.arg(payload)::BYTEA, now(), sqlc.arg(opens)::BOOLEAN, sqlc.arg(token)::BIGINT
    WHERE EXISTS (
        SELECT 1 FROM relay_leases l
        WHERE l.key = sqlc.arg(key) AND l.token = sqlc.arg(token)::BIGINT AND l.held AND l.expires_at > now())
    RETURNING owner, size
)
INSERT INTO relay_usage AS u (owner, bytes)
SELECT owner, size FROM stored
ON CONFLICT (owner) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes;
