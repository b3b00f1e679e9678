-- name: UpsertTabFate :exec
-- A later fate of the same request replaces the earlier one.
INSERT INTO tab_fates (user_id, request_id, fate, recorded_at)
VALUES (sqlc.arg(user_id), sqlc.arg(request_id), sqlc.arg(fate), sqlc.arg(recorded_at))
ON CONFLICT (user_id, request_id) DO UPDATE SET fate = excluded.fate, recorded_at = excluded.recorded_at;

-- name: ListTabFates :many
-- The fates of the Tab requests one of whose calls started in
-- [since, until): the call records of a prediction carry its request id as
-- run_id. An empty user_id matches every user.
SELECT f.user_id, f.request_id, f.fate, f.recorded_at FROM tab_fates f
WHERE (f.user_id = sqlc.arg(user_id) OR sqlc.arg(user_id) = '')
  AND EXISTS (SELECT 1 FROM call_records r
              WHERE r.run_id = f.request_id AND r.user_id = f.user_id AND r.kind = 'tab'
                AND r.request_started_at >= sqlc.arg(since) AND r.request_started_at < sqlc.arg(until))
ORDER BY f.user_id, f.request_id;

-- name: DeleteTabFatesBefore :execrows
DELETE FROM tab_fates WHERE recorded_at < sqlc.arg(cutoff);
