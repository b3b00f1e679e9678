-- name: InsertAuditEntry :one
INSERT INTO audit_log (at, actor_id, actor_name, role, action, target, before_doc, after_doc)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
RETURNING seq;

-- name: ListAuditEntries :many
SELECT * FROM audit_log
WHERE seq < sqlc.arg(before_seq) AND (CAST(sqlc.arg(actor_id) AS TEXT) = '' OR actor_id = sqlc.arg(actor_id))
ORDER BY seq DESC
LIMIT sqlc.arg(lim);
