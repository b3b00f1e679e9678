-- name: InsertConversation :exec
INSERT INTO conversations (id, root_checkpoint_id, head_checkpoint_id, created_at, updated_at)
VALUES ($1, $2, $2, $3, $3)
ON CONFLICT (id) DO NOTHING;

-- name: GetConversation :one
SELECT * FROM conversations WHERE id = $1;

-- name: LockConversation :one
-- Reads the conversation at the start of a write; on PostgreSQL it also locks
-- the row so writes to one conversation are serialized.
SELECT * FROM conversations WHERE id = $1
FOR UPDATE;

-- name: SetConversationHead :exec
UPDATE conversations SET head_checkpoint_id = $2, updated_at = $3 WHERE id = $1;

-- name: InsertCheckpoint :exec
INSERT INTO checkpoints (id, conversation_id, parent_id, length, digest, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING;

-- name: InsertCheckpointMessage :exec
INSERT INTO checkpoint_messages (checkpoint_id, ordinal, conversation_id, message_id)
VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING;

-- name: ExistingCheckpoints :many
SELECT id FROM checkpoints WHERE conversation_id = sqlc.arg(conversation_id) AND id = ANY(sqlc.arg(ids)::text[]);

-- name: InsertMessage :exec
INSERT INTO messages (conversation_id, id, runtime_event_id, body, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: InsertMessageBlob :exec
INSERT INTO message_blobs (conversation_id, message_id, blob_id) VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING;

-- name: StoredMessages :many
SELECT body FROM messages
WHERE conversation_id = sqlc.arg(conversation_id)
  AND (id = ANY(sqlc.arg(ids)::text[]) OR runtime_event_id = ANY(sqlc.arg(event_ids)::text[]));

-- name: GetCheckpoint :one
SELECT * FROM checkpoints WHERE id = $1;

-- name: CheckpointDelta :many
SELECT message_id FROM checkpoint_messages WHERE checkpoint_id = $1 ORDER BY ordinal;

-- name: CheckpointChain :many
-- Every checkpoint from the root to id, root first (lengths grow along a
-- chain), each with its delta rows in ordinal order and their bodies. The
-- recursive step looks the parent up with a scalar subquery so it is an
-- index probe per level whatever the planner's statistics say.
WITH RECURSIVE chain (id) AS (
    SELECT checkpoints.id FROM checkpoints WHERE checkpoints.id = $1
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
-- Which of ids the full list of checkpoint id already holds.
WITH RECURSIVE chain (id) AS (
    SELECT checkpoints.id FROM checkpoints WHERE checkpoints.id = sqlc.arg(checkpoint_id)
    UNION ALL
    SELECT (SELECT p.parent_id FROM checkpoints p WHERE p.id = chain.id)
    FROM chain WHERE chain.id IS NOT NULL
)
SELECT cm.message_id FROM chain JOIN checkpoint_messages cm ON cm.checkpoint_id = chain.id
WHERE cm.message_id = ANY(sqlc.arg(ids)::text[]);

-- name: CheckpointStorage :one
-- What a conversation's checkpoints occupy (logical bytes of their columns)
-- and how many list rows a layout storing every full list would need.
SELECT
    (SELECT COUNT(*) FROM checkpoints c WHERE c.conversation_id = $1)::bigint AS checkpoints,
    (SELECT COALESCE(SUM(octet_length(c.id) + octet_length(c.conversation_id) + COALESCE(octet_length(c.parent_id), 0) + 8 + octet_length(c.digest) + 8), 0)
     FROM checkpoints c WHERE c.conversation_id = $1)::bigint AS header_bytes,
    (SELECT COUNT(*) FROM checkpoint_messages m WHERE m.conversation_id = $1)::bigint AS delta_rows,
    (SELECT COALESCE(SUM(octet_length(m.checkpoint_id) + 8 + octet_length(m.conversation_id) + octet_length(m.message_id)), 0)
     FROM checkpoint_messages m WHERE m.conversation_id = $1)::bigint AS delta_bytes,
    (SELECT COALESCE(SUM(c.length), 0) FROM checkpoints c WHERE c.conversation_id = $1)::bigint AS full_copy_rows;
