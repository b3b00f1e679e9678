-- name: ListBudgetLimits :many
SELECT kind, subject, tokens_per_day, cost_per_month, concurrent_runs, concurrent_subagents,
    requests_per_minute, tokens_per_minute, updated_at
FROM budget_limits ORDER BY kind, subject;

-- name: UpsertBudgetLimits :exec
INSERT INTO budget_limits (kind, subject, tokens_per_day, cost_per_month, concurrent_runs, concurrent_subagents,
    requests_per_minute, tokens_per_minute, updated_at)
VALUES (sqlc.arg(kind), sqlc.arg(subject), sqlc.arg(tokens_per_day), sqlc.arg(cost_per_month), sqlc.arg(concurrent_runs),
    sqlc.arg(concurrent_subagents), sqlc.arg(requests_per_minute), sqlc.arg(tokens_per_minute), sqlc.arg(updated_at))
ON CONFLICT (kind, subject) DO UPDATE SET tokens_per_day = excluded.tokens_per_day, cost_per_month = excluded.cost_per_month,
    concurrent_runs = excluded.concurrent_runs, concurrent_subagents = excluded.concurrent_subagents,
    requests_per_minute = excluded.requests_per_minute, tokens_per_minute = excluded.tokens_per_minute,
    updated_at = excluded.updated_at;

-- name: DeleteBudgetLimits :execrows
DELETE FROM budget_limits WHERE kind = sqlc.arg(kind) AND subject = sqlc.arg(subject);

-- name: BumpBudgetRevision :one
UPDATE budget_revision SET revision = budget_revision.revision + 1 WHERE id = 1 RETURNING revision;

-- name: GetBudgetRevision :one
SELECT revision FROM budget_revision WHERE id = 1;

-- name: ClaimBudgetAlert :execrows
INSERT INTO budget_alerts (alert_key, sent_at) VALUES (sqlc.arg(alert_key), sqlc.arg(sent_at))
ON CONFLICT (alert_key) DO NOTHING;
