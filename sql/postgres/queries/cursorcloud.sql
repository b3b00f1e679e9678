-- name: AddCloudUsage :exec
INSERT INTO cursor_cloud_usage (day, user_id, service, method, decision, requests, bytes_up, bytes_down)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (day, user_id, service, method, decision) DO UPDATE SET requests = cursor_cloud_usage.requests + excluded.requests,
    bytes_up = cursor_cloud_usage.bytes_up + excluded.bytes_up, bytes_down = cursor_cloud_usage.bytes_down + excluded.bytes_down;

-- name: ListCloudUsage :many
SELECT day, user_id, service, method, decision, requests, bytes_up, bytes_down FROM cursor_cloud_usage
WHERE (sqlc.arg(user_id)::TEXT = '' OR user_id = sqlc.arg(user_id)::TEXT)
  AND (sqlc.arg(since)::TEXT = '' OR day >= sqlc.arg(since)::TEXT)
  AND (sqlc.arg(until)::TEXT = '' OR day <= sqlc.arg(until)::TEXT)
ORDER BY day COLLATE "C" DESC, requests DESC, service COLLATE "C", method COLLATE "C", decision, user_id
LIMIT sqlc.arg(max_rows)::BIGINT;
