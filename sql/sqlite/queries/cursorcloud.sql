-- name: AddCloudUsage :exec
INSERT INTO cursor_cloud_usage (day, user_id, service, method, decision, requests, bytes_up, bytes_down)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (day, user_id, service, method, decision) DO UPDATE SET requests = requests + excluded.requests,
    bytes_up = bytes_up + excluded.bytes_up, bytes_down = bytes_down + excluded.bytes_down;

-- name: ListCloudUsage :many
SELECT day, user_id, service, method, decision, requests, bytes_up, bytes_down FROM cursor_cloud_usage
WHERE (sqlc.arg(user_id) = '' OR user_id = sqlc.arg(user_id))
  AND (sqlc.arg(since) = '' OR day >= sqlc.arg(since))
  AND (sqlc.arg(until) = '' OR day <= sqlc.arg(until))
ORDER BY day DESC, requests DESC, service, method, decision, user_id
LIMIT sqlc.arg(max_rows);
