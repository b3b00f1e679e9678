-- Keygate schema, SQLite dialect. Times are INTEGER unix milliseconds (UTC):
-- they compare as numbers whatever the process time zone, unlike TEXT times.

-- +goose Up
CREATE TABLE conversations (
    id                 TEXT    PRIMARY KEY,
    root_checkpoint_id TEXT    NOT NULL,
    head_checkpoint_id TEXT    NOT NULL REFERENCES checkpoints (id) DEFERRABLE INITIALLY DEFERRED,
    active_run_id      TEXT,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

-- A message is immutable and stored once per conversation as its canonical
-- encoding; checkpoints refer to it by id.
CREATE TABLE messages (
    conversation_id  TEXT    NOT NULL REFERENCES conversations (id),
    id               TEXT    NOT NULL,
    runtime_event_id TEXT,
    body             BLOB    NOT NULL,
    created_at       INTEGER NOT NULL,
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
    length          INTEGER NOT NULL,
    digest          BLOB    NOT NULL,
    created_at      INTEGER NOT NULL,
    UNIQUE (conversation_id, digest)
);
CREATE INDEX checkpoints_parent ON checkpoints (parent_id);

CREATE TABLE checkpoint_messages (
    checkpoint_id   TEXT    NOT NULL REFERENCES checkpoints (id),
    ordinal         INTEGER NOT NULL,
    conversation_id TEXT    NOT NULL,
    message_id      TEXT    NOT NULL,
    PRIMARY KEY (checkpoint_id, ordinal),
    FOREIGN KEY (conversation_id, message_id) REFERENCES messages (conversation_id, id)
);

CREATE TABLE blobs (
    id         BLOB    PRIMARY KEY,
    data       BLOB    NOT NULL,
    size       INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

-- parent → child references between blobs, for reachability.
CREATE TABLE blob_refs (
    parent_id BLOB NOT NULL REFERENCES blobs (id),
    child_id  BLOB NOT NULL REFERENCES blobs (id),
    PRIMARY KEY (parent_id, child_id)
);
CREATE INDEX blob_refs_child ON blob_refs (child_id);

-- Images a message names by blob id; the foreign key makes a message that
-- names a missing blob impossible to store.
CREATE TABLE message_blobs (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    blob_id         BLOB NOT NULL REFERENCES blobs (id),
    PRIMARY KEY (conversation_id, message_id, blob_id),
    FOREIGN KEY (conversation_id, message_id) REFERENCES messages (conversation_id, id)
);
CREATE INDEX message_blobs_blob ON message_blobs (blob_id);

CREATE TABLE input_anchors (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id),
    input_id        TEXT    NOT NULL,
    checkpoint_id   TEXT    NOT NULL REFERENCES checkpoints (id),
    created_at      INTEGER NOT NULL,
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
    provider_call_index INTEGER NOT NULL,
    usage_input         INTEGER NOT NULL,
    usage_cache_read    INTEGER NOT NULL,
    usage_cache_write   INTEGER NOT NULL,
    usage_output        INTEGER NOT NULL,
    usage_reasoning     INTEGER NOT NULL,
    usage_known         INTEGER NOT NULL,
    failure_category    TEXT    NOT NULL,
    failure_summary     TEXT    NOT NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
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
    plan               BLOB    NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

CREATE TABLE tool_round_results (
    round_id      TEXT    NOT NULL REFERENCES tool_rounds (id),
    seq           INTEGER NOT NULL,
    call_id       TEXT    NOT NULL,
    checkpoint_id TEXT    NOT NULL REFERENCES checkpoints (id),
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (round_id, seq),
    UNIQUE (round_id, call_id)
);

CREATE TABLE settings (
    name       TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE model_configs (
    id                    TEXT    PRIMARY KEY,
    sort_order            INTEGER NOT NULL,
    display_name          TEXT    NOT NULL,
    group_name            TEXT    NOT NULL,
    enabled               BOOLEAN NOT NULL,
    provider_kind         TEXT    NOT NULL,
    base_url              TEXT    NOT NULL,
    use_full_url          BOOLEAN NOT NULL,
    sealed_api_key        BLOB    NOT NULL,
    model_id              TEXT    NOT NULL,
    tooltip               TEXT    NOT NULL,
    reasoning_effort      TEXT    NOT NULL,
    context_window_tokens INTEGER NOT NULL,
    max_output_tokens     INTEGER NOT NULL,
    extra_params          TEXT    NOT NULL,
    custom_headers        TEXT    NOT NULL,
    supports_images       BOOLEAN NOT NULL,
    supports_tools        BOOLEAN NOT NULL,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
);

CREATE TABLE call_records (
    call_id              TEXT    PRIMARY KEY,
    run_id               TEXT    NOT NULL,
    conversation_id      TEXT    NOT NULL,
    provider_call_index  INTEGER NOT NULL,
    provider_kind        TEXT    NOT NULL,
    request_url          TEXT    NOT NULL,
    model_id             TEXT    NOT NULL,
    reasoning_effort     TEXT    NOT NULL,
    service_tier         TEXT    NOT NULL,
    message_count        INTEGER NOT NULL,
    tool_count           INTEGER NOT NULL,
    response_model       TEXT    NOT NULL,
    response_id          TEXT    NOT NULL,
    status               TEXT    NOT NULL,
    finish               TEXT    NOT NULL,
    http_status          INTEGER NOT NULL,
    error_class          TEXT    NOT NULL,
    error_message        TEXT    NOT NULL,
    request_started_at   INTEGER NOT NULL,
    response_headers_at  INTEGER NOT NULL,
    first_event_at       INTEGER NOT NULL,
    first_text_at        INTEGER NOT NULL,
    finished_at          INTEGER NOT NULL,
    request_bytes        INTEGER NOT NULL,
    response_bytes       INTEGER NOT NULL,
    event_count          INTEGER NOT NULL,
    has_usage            BOOLEAN NOT NULL,
    usage_input          INTEGER NOT NULL,
    usage_cache_read     INTEGER NOT NULL,
    usage_cache_write    INTEGER NOT NULL,
    usage_output         INTEGER NOT NULL,
    usage_reasoning      INTEGER NOT NULL,
    usage_known          INTEGER NOT NULL,
    detailed             BOOLEAN NOT NULL
);
CREATE INDEX call_records_run ON call_records (run_id, status);
CREATE INDEX call_records_started ON call_records (request_started_at);

CREATE TABLE call_requests (
    call_id TEXT PRIMARY KEY REFERENCES call_records (call_id),
    method  TEXT NOT NULL,
    url     TEXT NOT NULL,
    headers TEXT NOT NULL,
    body    BLOB NOT NULL
);

CREATE TABLE call_chunks (
    call_id   TEXT    NOT NULL REFERENCES call_records (call_id),
    seq       INTEGER NOT NULL,
    offset_us INTEGER NOT NULL,
    data      BLOB    NOT NULL,
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
DROP TABLE checkpoints;
DROP TABLE messages;
DROP TABLE conversations;
