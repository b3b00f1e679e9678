-- name: InsertServiceAccount :exec
INSERT INTO service_accounts (id, name, role, created_by, hash, hint, created_at, expires_at, last_used_at, revoked_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10);

-- name: ServiceAccountByHash :one
SELECT * FROM service_accounts WHERE hash = ?1;

-- name: ListServiceAccounts :many
SELECT * FROM service_accounts ORDER BY created_at DESC, id DESC;

-- name: RevokeServiceAccount :execrows
UPDATE service_accounts SET revoked_at = CASE WHEN revoked_at = 0 THEN ?2 ELSE revoked_at END WHERE id = ?1;

-- name: TouchServiceAccount :execrows
UPDATE service_accounts SET last_used_at = CASE WHEN last_used_at < ?2 THEN ?2 ELSE last_used_at END WHERE id = ?1;
