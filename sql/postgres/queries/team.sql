-- name: ListTeams :many
SELECT name, restricted, models, created_at, updated_at FROM teams ORDER BY name;

-- name: GetTeam :one
SELECT name, restricted, models, created_at, updated_at FROM teams WHERE name = sqlc.arg(name);

-- name: UpsertTeam :exec
-- A replacement keeps created_at.
INSERT INTO teams (name, restricted, models, created_at, updated_at)
VALUES (sqlc.arg(name), sqlc.arg(restricted), sqlc.arg(models), sqlc.arg(created_at), sqlc.arg(updated_at))
ON CONFLICT (name) DO UPDATE SET restricted = excluded.restricted, models = excluded.models, updated_at = excluded.updated_at;

-- name: DeleteTeam :execrows
DELETE FROM teams WHERE name = sqlc.arg(name);

-- name: UpsertTeamChoice :exec
INSERT INTO team_choices (user_id, team, chosen_at) VALUES (sqlc.arg(user_id), sqlc.arg(team), sqlc.arg(chosen_at))
ON CONFLICT (user_id) DO UPDATE SET team = excluded.team, chosen_at = excluded.chosen_at;

-- name: DeleteTeamChoice :exec
DELETE FROM team_choices WHERE user_id = sqlc.arg(user_id);

-- name: GetTeamChoice :one
SELECT team FROM team_choices WHERE user_id = sqlc.arg(user_id);

-- name: ListAllUserGroups :many
SELECT user_id, groups FROM user_groups ORDER BY user_id LIMIT sqlc.arg(lim)::BIGINT;
