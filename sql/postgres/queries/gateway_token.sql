-- name: InsertGatewayToken :exec
INSERT INTO gateway_tokens (id, user_id, user_name, name, hash, hint, created_at, expires_at, last_used_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: GatewayTokenByHash :one
SELECT * FROM gateway_tokens WHERE hash = $1;

-- name: GatewayTokensOfUser :many
SELECT * FROM gateway_tokens WHERE user_id = $1 ORDER BY created_at DESC, id DESC;

-- name: AllGatewayTokens :many
SELECT * FROM gateway_tokens ORDER BY created_at DESC, id DESC;

-- name: RevokeGatewayToken :execrows
UPDATE gateway_tokens SET revoked_at = CASE WHEN revoked_at = '0001-01-01 00:00:00+00' THEN $2 ELSE revoked_at END WHERE id = $1;

-- name: TouchGatewayToken :execrows
UPDATE gateway_tokens SET last_used_at = GREATEST(last_used_at, $2) WHERE id = $1;

-- name: LockTokenOwner :exec
SELECT pg_advisory_xact_lock(hashtextextended('keygate gateway tokens ' || sqlc.arg(user_id)::TEXT, 0));
