-- Audit log of administrator actions. before_doc/after_doc are JSON with
-- secrets already masked; NULL when the object did not exist.

-- +goose Up
CREATE TABLE audit_log (
    seq        BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         TIMESTAMPTZ NOT NULL,
    actor_id   TEXT        NOT NULL,
    actor_name TEXT        NOT NULL,
    role       TEXT        NOT NULL,
    action     TEXT        NOT NULL,
    target     TEXT        NOT NULL,
    before_doc BYTEA,
    after_doc  BYTEA
);
CREATE INDEX audit_log_actor ON audit_log (actor_id, seq);

-- +goose Down
DROP TABLE audit_log;
