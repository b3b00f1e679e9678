-- Erasing one conversation (a user's or an administrator's deletion, or
-- retention): its rows, its calls' details and prompts, its image blobs no
-- other conversation uses. The call records stay, without their error text,
-- for the spend and audit figures.

-- name: EraseCallChunks :exec
DELETE FROM call_chunks
WHERE call_id IN (SELECT r.call_id FROM call_records r WHERE r.conversation_id = sqlc.arg(conversation_id));

-- name: EraseCallRequests :exec
DELETE FROM call_requests
WHERE call_id IN (SELECT r.call_id FROM call_records r WHERE r.conversation_id = sqlc.arg(conversation_id));

-- name: ErasePrompts :exec
DELETE FROM prompts
WHERE call_id IN (SELECT r.call_id FROM call_records r WHERE r.conversation_id = sqlc.arg(conversation_id));

-- name: EraseCallErrors :exec
UPDATE call_records SET error_message = ''
WHERE conversation_id = sqlc.arg(conversation_id) AND error_message <> '';

-- name: EraseRunOwners :exec
DELETE FROM owners
WHERE kind = 'run' AND id IN (SELECT r.id FROM runs r WHERE r.conversation_id = sqlc.arg(conversation_id));

-- name: EraseConversationOwner :exec
DELETE FROM owners WHERE kind = 'conversation' AND id = sqlc.arg(conversation_id);

-- name: EraseToolRoundResults :exec
DELETE FROM tool_round_results
WHERE round_id IN (SELECT t.id FROM tool_rounds t WHERE t.conversation_id = sqlc.arg(conversation_id));

-- name: EraseToolRounds :exec
DELETE FROM tool_rounds WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseRuns :exec
DELETE FROM runs WHERE conversation_id = sqlc.arg(conversation_id);

-- name: ConversationImageBlobs :many
SELECT DISTINCT blob_id FROM message_blobs WHERE conversation_id = sqlc.arg(conversation_id) ORDER BY blob_id;

-- name: EraseMessageBlobs :exec
DELETE FROM message_blobs WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseCheckpointMessages :exec
DELETE FROM checkpoint_messages WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseCheckpoints :exec
DELETE FROM checkpoints WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseMessages :exec
DELETE FROM messages WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseConversationRow :exec
DELETE FROM conversations WHERE id = sqlc.arg(conversation_id);

-- name: EraseRouteAffinity :exec
DELETE FROM route_affinity WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseContextAnchorRow :exec
DELETE FROM context_anchors WHERE conversation_id = sqlc.arg(conversation_id);

-- name: EraseUnusedBlobRefs :exec
DELETE FROM blob_refs
WHERE blob_refs.parent_id = sqlc.arg(blob_id)
  AND NOT EXISTS (SELECT 1 FROM message_blobs m WHERE m.blob_id = sqlc.arg(blob_id))
  AND NOT EXISTS (SELECT 1 FROM blob_refs c WHERE c.child_id = sqlc.arg(blob_id));

-- name: EraseUnusedBlob :exec
DELETE FROM blobs
WHERE blobs.id = sqlc.arg(blob_id)
  AND NOT EXISTS (SELECT 1 FROM message_blobs m WHERE m.blob_id = sqlc.arg(blob_id))
  AND NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.child_id = sqlc.arg(blob_id) OR r.parent_id = sqlc.arg(blob_id));

-- name: StaleConversations :many
SELECT id FROM conversations
WHERE updated_at < sqlc.arg(cutoff) AND active_run_id IS NULL
ORDER BY updated_at, id
LIMIT sqlc.arg(max_rows);
