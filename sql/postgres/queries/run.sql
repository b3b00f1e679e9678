-- name: InsertRun :exec
INSERT INTO runs (id, conversation_id, cursor_request_id, parent_run_id, parent_tool_call_id, kind,
                  base_checkpoint_id, head_checkpoint_id, status, provider_call_index,
                  usage_input, usage_cache_read, usage_cache_write, usage_output, usage_reasoning, usage_known,
                  failure_category, failure_summary, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 'running', -1, 0, 0, 0, 0, 0, 0, '', '', $8, $8);

-- name: GetRun :one
SELECT * FROM runs WHERE id = $1;

-- name: LatestRunByCursorRequest :one
SELECT * FROM runs WHERE cursor_request_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1;

-- name: SetActiveRun :exec
UPDATE conversations SET active_run_id = $2, updated_at = $3 WHERE id = $1;

-- name: CancelRun :exec
UPDATE runs SET status = 'cancelled', updated_at = $2 WHERE id = $1 AND status = 'running';

-- name: CancelRunningCalls :exec
UPDATE call_records SET status = 'cancelled', finished_at = $2 WHERE run_id = $1 AND status = 'running';

-- name: OwnedRun :one
-- The run if it is running and still the active run of its conversation.
SELECT r.* FROM runs r JOIN conversations c ON c.id = r.conversation_id AND c.active_run_id = r.id
WHERE r.id = $1 AND r.status = 'running';

-- name: SetRunHead :exec
UPDATE runs SET head_checkpoint_id = $2, updated_at = $3 WHERE id = $1;

-- name: NextProviderCall :one
UPDATE runs SET provider_call_index = provider_call_index + 1, updated_at = $2
WHERE id = $1 AND status = 'running'
RETURNING provider_call_index;

-- name: FinishRun :execrows
UPDATE runs SET status = $2, usage_input = $3, usage_cache_read = $4, usage_cache_write = $5,
                usage_output = $6, usage_reasoning = $7, usage_known = $8,
                failure_category = $9, failure_summary = $10, updated_at = $11
WHERE id = $1 AND status = 'running';

-- name: ClearActiveRun :exec
UPDATE conversations SET active_run_id = NULL, updated_at = $2 WHERE id = $1 AND active_run_id = $3;
