-- name: InsertAuditEntry :one
INSERT INTO audit_log (at, actor_id, actor_name, role, action, target, before_doc, after_doc)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING seq;

-- name: ListAuditEntries :many
SELECT * FROM audit_log
WHERE seq < sqlc.arg(before_seq)::BIGINT AND (sqlc.arg(actor_id)::TEXT = '' OR actor_id = sqlc.arg(actor_id)::TEXT)
ORDER BY seq DESC
LIMIT sqlc.arg(lim)::BIGINT;
