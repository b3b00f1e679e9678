-- Personal gateway tokens (company mode). Only the SHA-256 of a token is
-- stored; a time that is not set is the zero time, not NULL.

-- +goose Up
CREATE TABLE gateway_tokens (
    id           TEXT        PRIMARY KEY,
    user_id      TEXT        NOT NULL,
    user_name    TEXT        NOT NULL,
    name         TEXT        NOT NULL,
    hash         BYTEA       NOT NULL UNIQUE,
    hint         TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX gateway_tokens_user ON gateway_tokens (user_id, created_at);

-- +goose Down
DROP TABLE gateway_tokens;
