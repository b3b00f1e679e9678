-- Service accounts (ports.ServiceAccountStore): API keys for the control
-- API with a role (admin or read-only), for automation such as a deploy
-- pipeline. Only the SHA-256 of a key is stored; a time that is not set is
-- the zero time, not NULL.

-- +goose Up
CREATE TABLE service_accounts (
    id           TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    role         TEXT    NOT NULL,
    created_by   TEXT    NOT NULL,
    hash         BLOB    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER NOT NULL DEFAULT 0,
    revoked_at   INTEGER NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE service_accounts;
