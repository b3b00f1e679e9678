-- name: InsertConversation :exec
INSERT INTO conversations (id, root_checkpoint_id, head_checkpoint_id, created_at, updated_at)
VALUES (?1, ?2, ?2, ?3, ?3)
ON CONFLICT (id) DO NOTHING;

-- name: GetConversation :one
SELECT * FROM conversations WHERE id = ?1;

-- name: LockConversation :one
-- Reads the conversation at the start of a write; on PostgreSQL it also locks
-- the row so writes to one conversation are serialized.
SELECT * FROM conversations WHERE id = ?1;

-- name: SetConversationHead :exec
UPDATE conversations SET head_checkpoint_id = ?2, updated_at = ?3 WHERE id = ?1;

-- name: InsertCheckpoint :exec
INSERT INTO checkpoints (id, conversation_id, parent_id, length, digest, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT DO NOTHING;

-- name: InsertCheckpointMessage :exec
INSERT INTO checkpoint_messages (checkpoint_id, ordinal, conversation_id, message_id)
VALUES (?1, ?2, ?3, ?4)
ON CONFLICT DO NOTHING;

-- name: ExistingCheckpoints :many
-- ids is a JSON array, not sqlc.slice: a statement with a slice is built
-- and prepared again at every call, this one once (emit_prepared_queries).
-- The unary + keeps SQLite from scanning the conversation's checkpoints by
-- (conversation_id, digest): each id is looked up by its primary key.
SELECT id FROM checkpoints WHERE +conversation_id = sqlc.arg(conversation_id)
  AND id IN (SELECT value FROM json_each(sqlc.arg(ids_json)));

-- name: InsertMessage :exec
INSERT INTO messages (conversation_id, id, runtime_event_id, body, created_at)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: InsertMessageBlob :exec
INSERT INTO message_blobs (conversation_id, message_id, blob_id) VALUES (?1, ?2, ?3)
ON CONFLICT DO NOTHING;

-- name: StoredMessages :many
-- Two indexed searches joined by UNION (a body names its message, so no
-- two messages' bodies are equal): with OR, SQLite scans every message of
-- the conversation.
SELECT m.body FROM messages m
WHERE m.conversation_id = ?1 AND m.id IN (SELECT value FROM json_each(?2))
UNION
SELECT e.body FROM messages e
WHERE e.conversation_id = ?1 AND e.runtime_event_id IN (SELECT value FROM json_each(?3));

-- name: GetCheckpoint :one
SELECT * FROM checkpoints WHERE id = ?1;

-- name: CheckpointDelta :many
SELECT message_id FROM checkpoint_messages WHERE checkpoint_id = ?1 ORDER BY ordinal;

-- name: CheckpointChain :many
-- Every checkpoint from the root to id, root first (lengths grow along a
-- chain), each with its delta rows in ordinal order and their bodies. The
-- recursive step looks the parent up with a scalar subquery so it is an
-- index probe per level whatever the planner's statistics say.
WITH RECURSIVE chain (id) AS (
    SELECT checkpoints.id FROM checkpoints WHERE checkpoints.id = ?1
    UNION ALL
    SELECT (SELECT p.parent_id FROM checkpoints p WHERE p.id = chain.id)
    FROM chain WHERE chain.id IS NOT NULL
)
SELECT c.id, c.conversation_id, c.parent_id, c.length, c.digest,
       cm.ordinal, cm.message_id, m.body
FROM chain
JOIN checkpoints c ON c.id = chain.id
LEFT JOIN checkpoint_messages cm ON cm.checkpoint_id = c.id
LEFT JOIN messages m ON m.conversation_id = cm.conversation_id AND m.id = cm.message_id
ORDER BY c.length, cm.ordinal;

-- name: ChainHolds :many
-- Which of ids (a JSON array) the full list of checkpoint id already holds.
-- A JSON array rather than sqlc.slice: sqlc misnumbers a slice placed after
-- a parameter inside a CTE.
WITH RECURSIVE chain (id) AS (
    SELECT checkpoints.id FROM checkpoints WHERE checkpoints.id = sqlc.arg(checkpoint_id)
    UNION ALL
    SELECT (SELECT p.parent_id FROM checkpoints p WHERE p.id = chain.id)
    FROM chain WHERE chain.id IS NOT NULL
)
SELECT cm.message_id FROM chain JOIN checkpoint_messages cm ON cm.checkpoint_id = chain.id
WHERE cm.message_id IN (SELECT value FROM json_each(sqlc.arg(ids_json)));

-- name: CheckpointStorage :one
-- What a conversation's checkpoints occupy (logical bytes of their columns)
-- and how many list rows a layout storing every full list would need.
SELECT
    CAST((SELECT COUNT(*) FROM checkpoints c WHERE c.conversation_id = ?1) AS INTEGER) AS checkpoints,
    CAST((SELECT COALESCE(SUM(length(c.id) + length(c.conversation_id) + COALESCE(length(c.parent_id), 0) + 8 + length(c.digest) + 8), 0)
          FROM checkpoints c WHERE c.conversation_id = ?1) AS INTEGER) AS header_bytes,
    CAST((SELECT COUNT(*) FROM checkpoint_messages m WHERE m.conversation_id = ?1) AS INTEGER) AS delta_rows,
    CAST((SELECT COALESCE(SUM(length(m.checkpoint_id) + 8 + length(m.conversation_id) + length(m.message_id)), 0)
          FROM checkpoint_messages m WHERE m.conversation_id = ?1) AS INTEGER) AS delta_bytes,
    CAST((SELECT COALESCE(SUM(c.length), 0) FROM checkpoints c WHERE c.conversation_id = ?1) AS INTEGER) AS full_copy_rows;
