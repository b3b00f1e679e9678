-- Personal gateway tokens (company mode). Only the SHA-256 of a token is
-- stored; times are Unix milliseconds, 0 for "not set".

-- +goose Up
CREATE TABLE gateway_tokens (
    id           TEXT    PRIMARY KEY,
    user_id      TEXT    NOT NULL,
    user_name    TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    hash         BLOB    NOT NULL UNIQUE,
    hint         TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER NOT NULL DEFAULT 0,
    revoked_at   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX gateway_tokens_user ON gateway_tokens (user_id, created_at);

-- +goose Down
DROP TABLE gateway_tokens;
