-- name: AddUsage :exec
INSERT INTO usage_counters (user_id, period, tokens, cost_micros) VALUES ($1, $2, $3, $4)
ON CONFLICT (user_id, period) DO UPDATE SET tokens = usage_counters.tokens + excluded.tokens,
    cost_micros = usage_counters.cost_micros + excluded.cost_micros;

-- name: GetUsage :one
SELECT tokens, cost_micros FROM usage_counters WHERE user_id = $1 AND period = $2;

-- name: LockUserLeases :exec
SELECT pg_advisory_xact_lock(hashtextextended('keygate run leases ' || sqlc.arg(user_id)::TEXT, 0));

-- name: CountOtherLeases :one
SELECT count(*) FROM run_leases WHERE user_id = $1 AND run_id <> $2 AND expires_at > $3;

-- name: UpsertLease :exec
INSERT INTO run_leases (run_id, user_id, expires_at) VALUES ($1, $2, $3)
ON CONFLICT (run_id) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at;

-- name: DeleteLease :exec
DELETE FROM run_leases WHERE run_id = $1;

-- name: LeaseHeld :one
SELECT count(*) FROM run_leases WHERE run_id = $1 AND expires_at > $2;
