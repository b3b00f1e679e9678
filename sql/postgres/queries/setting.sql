-- name: GetSetting :one
SELECT value FROM settings WHERE name = $1;

-- name: PutSetting :exec
INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at;

-- name: DeleteSetting :execrows
DELETE FROM settings WHERE name = $1;
