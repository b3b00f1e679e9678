-- name: GetRateWindow :one
SELECT requests, tokens FROM rate_windows WHERE scope = ?1 AND window_start = ?2;

-- name: BumpRateWindow :exec
INSERT INTO rate_windows (scope, window_start, requests, tokens) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (scope, window_start) DO UPDATE SET requests = rate_windows.requests + excluded.requests,
    tokens = rate_windows.tokens + excluded.tokens;

-- name: DeleteOldRateWindows :exec
DELETE FROM rate_windows WHERE scope = ?1 AND window_start < ?2;
