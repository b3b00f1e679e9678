-- Fingerprints every replica of a deployment must agree on (see
-- ports.FingerprintStore): of the secret key (an HMAC under the key, which
-- reveals nothing of it) and of the company CA. A replica started with
-- another key or CA is refused at start instead of failing later.

-- +goose Up
CREATE TABLE deployment_fingerprints (
    name        TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE deployment_fingerprints;
