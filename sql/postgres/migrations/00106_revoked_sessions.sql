-- Console sessions signed out before they expired (see
-- ports.SessionRevocations); rows are purged once the session would have
-- expired anyway.

-- +goose Up
CREATE TABLE revoked_sessions (
    id         TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX revoked_sessions_expires ON revoked_sessions (expires_at);

-- +goose Down
DROP TABLE revoked_sessions;
