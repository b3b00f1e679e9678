-- name: ListCallRecords :many
-- Newest first; empty filters match everything; the cursor bound is
-- "after" in that order (the adapter passes +infinity for no cursor).
SELECT * FROM call_records
WHERE (model_id = sqlc.arg(model_id) OR sqlc.arg(model_id) = '')
  AND (status = sqlc.arg(status) OR sqlc.arg(status) = '')
  AND (conversation_id = sqlc.arg(conversation_id) OR sqlc.arg(conversation_id) = '')
  AND (user_id = sqlc.arg(user_id) OR sqlc.arg(user_id) = '')
  AND (kind = sqlc.arg(kind) OR sqlc.arg(kind) = '')
  AND request_started_at >= sqlc.arg(since) AND request_started_at < sqlc.arg(until)
  AND (request_started_at < sqlc.arg(after_started)
       OR (request_started_at = sqlc.arg(after_started) AND call_id < sqlc.arg(after_call_id)))
ORDER BY request_started_at DESC, call_id DESC
LIMIT sqlc.arg(max_rows);

-- name: CountDetailedBefore :one
SELECT COUNT(*) FROM call_records r
WHERE r.request_started_at < sqlc.arg(cutoff)
  AND (EXISTS (SELECT 1 FROM call_requests q WHERE q.call_id = r.call_id)
       OR EXISTS (SELECT 1 FROM call_chunks c WHERE c.call_id = r.call_id));

-- name: DeleteChunksBefore :exec
DELETE FROM call_chunks
WHERE call_id IN (SELECT r.call_id FROM call_records r WHERE r.request_started_at < sqlc.arg(cutoff));

-- name: DeleteRequestsBefore :exec
DELETE FROM call_requests
WHERE call_id IN (SELECT r.call_id FROM call_records r WHERE r.request_started_at < sqlc.arg(cutoff));

-- name: ListConversations :many
-- Each conversation with what the console lists: its owner, the model of
-- its latest call (the route the client asked for when routed), how many
-- user-visible turns it holds (messages of a client event) and the first
-- of them, which the adapter decodes into a title.
SELECT c.id, c.head_checkpoint_id, c.created_at, c.updated_at,
       CAST(coalesce((SELECT o.user_id FROM owners o WHERE o.kind = 'conversation' AND o.id = c.id), '') AS TEXT) AS owner_id,
       CAST(coalesce((SELECT CASE WHEN r.route_id <> '' THEN r.route_id ELSE r.model_id END FROM call_records r
                      WHERE r.conversation_id = c.id ORDER BY r.request_started_at DESC LIMIT 1), '') AS TEXT) AS last_model,
       (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.runtime_event_id IS NOT NULL) AS turns,
       (SELECT m.body FROM messages m WHERE m.conversation_id = c.id AND m.runtime_event_id IS NOT NULL
        ORDER BY m.created_at, m.id LIMIT 1) AS first_turn
FROM conversations c
WHERE c.updated_at < sqlc.arg(after_updated)
   OR (c.updated_at = sqlc.arg(after_updated) AND c.id < sqlc.arg(after_id))
ORDER BY c.updated_at DESC, c.id DESC
LIMIT sqlc.arg(max_rows);

-- name: ConversationCheckpoints :many
-- Every checkpoint of a conversation with its delta ids; lengths grow from
-- parent to child, so ordering by length lists parents first.
SELECT c.id, c.conversation_id, c.parent_id, c.length, c.digest, c.created_at, cm.message_id
FROM checkpoints c
LEFT JOIN checkpoint_messages cm ON cm.checkpoint_id = c.id
WHERE c.conversation_id = sqlc.arg(conversation_id)
ORDER BY c.length, c.id, cm.ordinal;

-- name: GetContextAnchor :one
SELECT * FROM context_anchors WHERE conversation_id = sqlc.arg(conversation_id);

-- name: PutContextAnchor :exec
INSERT INTO context_anchors (conversation_id, context_tokens, message_count, updated_at)
VALUES (sqlc.arg(conversation_id), sqlc.arg(context_tokens), sqlc.arg(message_count), sqlc.arg(updated_at))
ON CONFLICT (conversation_id) DO UPDATE SET context_tokens = excluded.context_tokens,
    message_count = excluded.message_count, updated_at = excluded.updated_at;

-- name: DeleteContextAnchor :exec
DELETE FROM context_anchors WHERE conversation_id = sqlc.arg(conversation_id);

-- name: PutPrompt :exec
INSERT INTO prompts (call_id, kind, body, created_at)
VALUES (sqlc.arg(call_id), sqlc.arg(kind), sqlc.arg(body), sqlc.arg(created_at))
ON CONFLICT (call_id) DO UPDATE SET kind = excluded.kind, body = excluded.body, created_at = excluded.created_at;

-- name: GetPrompt :one
SELECT kind, body, created_at FROM prompts WHERE call_id = sqlc.arg(call_id);

-- name: DeletePromptsBefore :execrows
DELETE FROM prompts WHERE created_at < sqlc.arg(cutoff);

-- name: PromptBytes :one
-- The bytes a call's stored prompt occupies in its columns (for benchmarks).
SELECT CAST(length(call_id) + length(kind) + length(body) + 8 AS INTEGER) FROM prompts WHERE call_id = sqlc.arg(call_id);
