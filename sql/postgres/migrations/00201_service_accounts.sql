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
    hash         BYTEA    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE service_accounts;
