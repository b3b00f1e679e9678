-- name: GetFingerprint :one
SELECT fingerprint FROM deployment_fingerprints WHERE name = ?1;

-- name: InsertFingerprint :exec
INSERT INTO deployment_fingerprints (name, fingerprint, updated_at) VALUES (?1, ?2, ?3)
ON CONFLICT (name) DO NOTHING;

-- name: ReplaceFingerprint :execrows
UPDATE deployment_fingerprints SET fingerprint = sqlc.arg(fingerprint), updated_at = sqlc.arg(updated_at)
WHERE name = sqlc.arg(name) AND fingerprint = sqlc.arg(old);
