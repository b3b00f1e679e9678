-- Owner of every tenant-scoped object (conversation, run, blob namespace,
-- call record): the user whose request created it.

-- +goose Up
CREATE TABLE owners (
    kind       TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX owners_user ON owners (kind, user_id);

-- +goose Down
DROP TABLE owners;
