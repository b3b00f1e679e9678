-- name: InsertToolRound :exec
INSERT INTO tool_rounds (id, run_id, conversation_id, base_checkpoint_id, plan, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $6);

-- name: GetToolRound :one
SELECT * FROM tool_rounds WHERE id = $1;

-- name: ToolRoundResults :many
SELECT * FROM tool_round_results WHERE round_id = $1 ORDER BY seq;

-- name: InsertToolRoundResult :exec
INSERT INTO tool_round_results (round_id, seq, call_id, checkpoint_id, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: TouchToolRound :exec
UPDATE tool_rounds SET updated_at = $2 WHERE id = $1;
