-- name: InsertBlob :exec
INSERT INTO blobs (id, data, size, created_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (id) DO NOTHING;

-- name: GetBlob :one
SELECT data FROM blobs WHERE id = $1;

-- name: HasBlob :one
SELECT COUNT(*) FROM blobs WHERE id = $1;

-- name: InsertBlobRef :exec
INSERT INTO blob_refs (parent_id, child_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING;

-- name: BlobChildren :many
SELECT child_id FROM blob_refs WHERE parent_id = $1 ORDER BY child_id;
