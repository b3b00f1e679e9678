-- name: UpsertUserGroups :exec
INSERT INTO user_groups (user_id, groups, seen_at) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET groups = excluded.groups, seen_at = excluded.seen_at
WHERE user_groups.seen_at <= excluded.seen_at;

-- name: GetUserGroups :one
SELECT groups, seen_at FROM user_groups WHERE user_id = $1;
