-- Appends forwarded between replicas (ports.AppendRelay): kept until the
-- replica holding the run's stream takes them, woken by NOTIFY keygate_relay.

-- +goose Up
CREATE TABLE relay_inbox (
    seq        BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key        TEXT        NOT NULL,
    payload    BYTEA       NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX relay_inbox_key ON relay_inbox (key, seq);

-- +goose Down
DROP TABLE relay_inbox;
