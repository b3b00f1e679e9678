-- name: InsertMemory :exec
INSERT INTO memories (id, user_id, title, knowledge, git_origin, created_at, updated_at)
VALUES (sqlc.arg(id), sqlc.arg(user_id), sqlc.arg(title), sqlc.arg(knowledge), sqlc.arg(git_origin), sqlc.arg(created_at), sqlc.arg(updated_at));

-- name: ListMemories :many
-- An empty user_id lists every user's memories.
SELECT id, user_id, title, knowledge, git_origin, created_at, updated_at FROM memories
WHERE user_id = sqlc.arg(user_id) OR sqlc.arg(user_id) = ''
ORDER BY user_id, created_at, id;

-- name: GetMemory :one
-- An empty user_id reads the memory whoever owns it.
SELECT id, user_id, title, knowledge, git_origin, created_at, updated_at FROM memories
WHERE id = sqlc.arg(id) AND (user_id = sqlc.arg(user_id) OR sqlc.arg(user_id) = '');

-- name: UpdateMemory :execrows
UPDATE memories SET title = sqlc.arg(title), knowledge = sqlc.arg(knowledge), updated_at = sqlc.arg(updated_at)
WHERE id = sqlc.arg(id) AND user_id = sqlc.arg(user_id);

-- name: DeleteMemory :execrows
DELETE FROM memories WHERE id = sqlc.arg(id) AND user_id = sqlc.arg(user_id);
