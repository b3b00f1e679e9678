-- Console browsing, context anchors and stored prompts.

-- +goose Up
CREATE INDEX conversations_updated ON conversations (updated_at, id);
CREATE INDEX call_records_model ON call_records (model_id, request_started_at);

-- The last authoritative context size of a conversation (compaction anchor).
CREATE TABLE context_anchors (
    conversation_id TEXT    PRIMARY KEY,
    context_tokens  BIGINT  NOT NULL,
    message_count   BIGINT  NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

-- The provider-independent request of each call, as JSON.
CREATE TABLE prompts (
    call_id    TEXT    PRIMARY KEY,
    request    BYTEA   NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE prompts;
DROP TABLE context_anchors;
DROP INDEX call_records_model;
DROP INDEX conversations_updated;
