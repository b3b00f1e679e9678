-- Keygate schema, PostgreSQL dialect. Times are timestamptz; a milestone that
-- was not reached is stored as the zero time (0001-01-01 UTC), not NULL.

-- +goose Up
CREATE TABLE conversations (
    id                 TEXT    PRIMARY KEY,
    root_checkpoint_id TEXT    NOT NULL,
    head_checkpoint_id TEXT    NOT NULL,
    active_run_id      TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);

-- A message is immutable and stored once per conversation as its canonical
-- encoding; checkpoints refer to it by id.
CREATE TABLE messages (
    conversation_id  TEXT    NOT NULL REFERENCES conversations (id),
    id               TEXT    NOT NULL,
    runtime_event_id TEXT,
    body             BYTEA    NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (conversation_id, id)
);
CREATE UNIQUE INDEX messages_runtime_event ON messages (conversation_id, runtime_event_id)
    WHERE runtime_event_id IS NOT NULL;

-- A checkpoint stores its header and only the ids it appends to its parent
-- (checkpoint_messages), so an append costs O(new messages).
CREATE TABLE checkpoints (
    id              TEXT    PRIMARY KEY,
    conversation_id TEXT    NOT NULL REFERENCES conversations (id),
    parent_id       TEXT    REFERENCES checkpoints (id),
    length          BIGINT NOT NULL,
    digest          BYTEA    NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (conversation_id, digest)
);
CREATE INDEX checkpoints_parent ON checkpoints (parent_id);
-- The head is inserted before its root checkpoint, so the check waits for commit.
ALTER TABLE conversations ADD CONSTRAINT conversations_head_fk FOREIGN KEY (head_checkpoint_id)
    REFERENCES checkpoints (id) DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE checkpoint_messages (
    checkpoint_id   TEXT    NOT NULL REFERENCES checkpoints (id),
    ordinal         BIGINT NOT NULL,
    conversation_id TEXT    NOT NULL,
    message_id      TEXT    NOT NULL,
    PRIMARY KEY (checkpoint_id, ordinal),
    FOREIGN KEY (conversation_id, message_id) REFERENCES messages (conversation_id, id)
);

CREATE TABLE blobs (
    id         BYTEA    PRIMARY KEY,
    data       BYTEA    NOT NULL,
    size       BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- parent → child references between blobs, for reachability.
CREATE TABLE blob_refs (
    parent_id BYTEA NOT NULL REFERENCES blobs (id),
    child_id  BYTEA NOT NULL REFERENCES blobs (id),
    PRIMARY KEY (parent_id, child_id)
);
CREATE INDEX blob_refs_child ON blob_refs (child_id);

-- Images a message names by blob id; the foreign key makes a message that
-- names a missing blob impossible to store.
CREATE TABLE message_blobs (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    blob_id         BYTEA NOT NULL REFERENCES blobs (id),
    PRIMARY KEY (conversation_id, message_id, blob_id),
    FOREIGN KEY (conversation_id, message_id) REFERENCES messages (conversation_id, id)
);
CREATE INDEX message_blobs_blob ON message_blobs (blob_id);

CREATE TABLE input_anchors (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id),
    input_id        TEXT    NOT NULL,
    checkpoint_id   TEXT    NOT NULL REFERENCES checkpoints (id),
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (conversation_id, input_id)
);

CREATE TABLE runs (
    id                  TEXT    PRIMARY KEY,
    conversation_id     TEXT    NOT NULL REFERENCES conversations (id),
    cursor_request_id   TEXT    NOT NULL,
    parent_run_id       TEXT    NOT NULL,
    parent_tool_call_id TEXT    NOT NULL,
    kind                TEXT    NOT NULL,
    base_checkpoint_id  TEXT    NOT NULL REFERENCES checkpoints (id),
    head_checkpoint_id  TEXT    NOT NULL REFERENCES checkpoints (id),
    status              TEXT    NOT NULL,
    provider_call_index BIGINT NOT NULL,
    usage_input         BIGINT NOT NULL,
    usage_cache_read    BIGINT NOT NULL,
    usage_cache_write   BIGINT NOT NULL,
    usage_output        BIGINT NOT NULL,
    usage_reasoning     BIGINT NOT NULL,
    usage_known         BIGINT NOT NULL,
    failure_category    TEXT    NOT NULL,
    failure_summary     TEXT    NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX runs_conversation ON runs (conversation_id, status);
CREATE INDEX runs_cursor_request ON runs (cursor_request_id, created_at);

-- A tool round is its plan (the round's assistant message, all calls in the
-- model's order) plus its results in completion order.
CREATE TABLE tool_rounds (
    id                 TEXT    PRIMARY KEY,
    run_id             TEXT    NOT NULL REFERENCES runs (id),
    conversation_id    TEXT    NOT NULL REFERENCES conversations (id),
    base_checkpoint_id TEXT    NOT NULL REFERENCES checkpoints (id),
    plan               BYTEA    NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE tool_round_results (
    round_id      TEXT    NOT NULL REFERENCES tool_rounds (id),
    seq           BIGINT NOT NULL,
    call_id       TEXT    NOT NULL,
    checkpoint_id TEXT    NOT NULL REFERENCES checkpoints (id),
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (round_id, seq),
    UNIQUE (round_id, call_id)
);

CREATE TABLE settings (
    name       TEXT    PRIMARY KEY,
    value      JSONB    NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE model_configs (
    id                    TEXT    PRIMARY KEY,
    sort_order            BIGINT NOT NULL,
    display_name          TEXT    NOT NULL,
    group_name            TEXT    NOT NULL,
    enabled               BOOLEAN NOT NULL,
    provider_kind         TEXT    NOT NULL,
    base_url              TEXT    NOT NULL,
    use_full_url          BOOLEAN NOT NULL,
    sealed_api_key        BYTEA    NOT NULL,
    model_id              TEXT    NOT NULL,
    tooltip               TEXT    NOT NULL,
    reasoning_effort      TEXT    NOT NULL,
    context_window_tokens BIGINT NOT NULL,
    max_output_tokens     BIGINT NOT NULL,
    extra_params          JSONB    NOT NULL,
    custom_headers        JSONB    NOT NULL,
    supports_images       BOOLEAN NOT NULL,
    supports_tools        BOOLEAN NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE call_records (
    call_id              TEXT    PRIMARY KEY,
    run_id               TEXT    NOT NULL,
    conversation_id      TEXT    NOT NULL,
    provider_call_index  BIGINT NOT NULL,
    provider_kind        TEXT    NOT NULL,
    request_url          TEXT    NOT NULL,
    model_id             TEXT    NOT NULL,
    reasoning_effort     TEXT    NOT NULL,
    service_tier         TEXT    NOT NULL,
    message_count        BIGINT NOT NULL,
    tool_count           BIGINT NOT NULL,
    response_model       TEXT    NOT NULL,
    response_id          TEXT    NOT NULL,
    status               TEXT    NOT NULL,
    finish               TEXT    NOT NULL,
    http_status          BIGINT NOT NULL,
    error_class          TEXT    NOT NULL,
    error_message        TEXT    NOT NULL,
    request_started_at   TIMESTAMPTZ NOT NULL,
    response_headers_at  TIMESTAMPTZ NOT NULL,
    first_event_at       TIMESTAMPTZ NOT NULL,
    first_text_at        TIMESTAMPTZ NOT NULL,
    finished_at          TIMESTAMPTZ NOT NULL,
    request_bytes        BIGINT NOT NULL,
    response_bytes       BIGINT NOT NULL,
    event_count          BIGINT NOT NULL,
    has_usage            BOOLEAN NOT NULL,
    usage_input          BIGINT NOT NULL,
    usage_cache_read     BIGINT NOT NULL,
    usage_cache_write    BIGINT NOT NULL,
    usage_output         BIGINT NOT NULL,
    usage_reasoning      BIGINT NOT NULL,
    usage_known          BIGINT NOT NULL,
    detailed             BOOLEAN NOT NULL
);
CREATE INDEX call_records_run ON call_records (run_id, status);
CREATE INDEX call_records_started ON call_records (request_started_at);

CREATE TABLE call_requests (
    call_id TEXT PRIMARY KEY REFERENCES call_records (call_id),
    method  TEXT NOT NULL,
    url     TEXT NOT NULL,
    headers JSONB NOT NULL,
    body    BYTEA NOT NULL
);

CREATE TABLE call_chunks (
    call_id   TEXT    NOT NULL REFERENCES call_records (call_id),
    seq       BIGINT NOT NULL,
    offset_us BIGINT NOT NULL,
    data      BYTEA    NOT NULL,
    PRIMARY KEY (call_id, seq)
);

-- +goose Down
DROP TABLE call_chunks;
DROP TABLE call_requests;
DROP TABLE call_records;
DROP TABLE model_configs;
DROP TABLE settings;
DROP TABLE tool_round_results;
DROP TABLE tool_rounds;
DROP TABLE runs;
DROP TABLE input_anchors;
DROP TABLE message_blobs;
DROP TABLE blob_refs;
DROP TABLE blobs;
DROP TABLE checkpoint_messages;
DROP TABLE checkpoints CASCADE;
DROP TABLE messages;
DROP TABLE conversations CASCADE;
