-- name: AdmitRateWindow :one
INSERT INTO rate_windows (scope, window_start, requests, tokens) VALUES ($1, $2, 1, 0)
ON CONFLICT (scope, window_start) DO UPDATE SET requests = rate_windows.requests + 1
WHERE (sqlc.arg(max_requests)::BIGINT = 0 OR rate_windows.requests < sqlc.arg(max_requests)::BIGINT)
  AND (sqlc.arg(max_tokens)::BIGINT = 0 OR rate_windows.tokens < sqlc.arg(max_tokens)::BIGINT)
RETURNING requests, tokens;

-- name: GetRateWindow :one
SELECT requests, tokens FROM rate_windows WHERE scope = $1 AND window_start = $2;

-- name: AddRateTokens :exec
INSERT INTO rate_windows (scope, window_start, requests, tokens) VALUES ($1, $2, 0, $3)
ON CONFLICT (scope, window_start) DO UPDATE SET tokens = rate_windows.tokens + excluded.tokens;

-- name: DeleteOldRateWindows :exec
DELETE FROM rate_windows WHERE scope = $1 AND window_start < $2;
