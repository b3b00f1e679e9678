-- Gateway routing state shared by every replica: the health of keys and
-- targets (route_health, one row per subject such as "key:<id>" or
-- "target:<model id>"), aliases over ordered or weighted targets, the
-- target that served each conversation's last turn on an alias
-- (route_affinity), and on each call record how it was routed.

-- +goose Up
CREATE TABLE route_health (
    subject       TEXT    PRIMARY KEY,
    cool_until    TIMESTAMPTZ NOT NULL,
    last_error    TEXT    NOT NULL,
    last_error_at TIMESTAMPTZ NOT NULL,
    failures      BIGINT NOT NULL,
    auth_failures BIGINT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE aliases (
    id                     TEXT    PRIMARY KEY,
    sort_order             BIGINT NOT NULL,
    display_name           TEXT    NOT NULL,
    group_name             TEXT    NOT NULL,
    tooltip                TEXT    NOT NULL,
    enabled                BOOLEAN NOT NULL,
    strategy               TEXT    NOT NULL,
    first_token_timeout_ms BIGINT NOT NULL,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);

CREATE TABLE alias_targets (
    alias_id TEXT    NOT NULL REFERENCES aliases (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    model_id TEXT    NOT NULL,
    weight   BIGINT NOT NULL,
    drained  BOOLEAN NOT NULL,
    PRIMARY KEY (alias_id, position)
);
CREATE INDEX alias_targets_model ON alias_targets (model_id);

CREATE TABLE route_affinity (
    conversation_id TEXT    NOT NULL,
    route_id        TEXT    NOT NULL,
    target_id       TEXT    NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (conversation_id, route_id)
);
CREATE INDEX route_affinity_updated ON route_affinity (updated_at);

ALTER TABLE call_records ADD COLUMN route_id TEXT NOT NULL DEFAULT '';
ALTER TABLE call_records ADD COLUMN route_target TEXT NOT NULL DEFAULT '';
ALTER TABLE call_records ADD COLUMN route_provider TEXT NOT NULL DEFAULT '';
ALTER TABLE call_records ADD COLUMN route_key TEXT NOT NULL DEFAULT '';
ALTER TABLE call_records ADD COLUMN route_attempt BIGINT NOT NULL DEFAULT 0;
ALTER TABLE call_records ADD COLUMN route_moved TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE call_records DROP COLUMN route_moved;
ALTER TABLE call_records DROP COLUMN route_attempt;
ALTER TABLE call_records DROP COLUMN route_key;
ALTER TABLE call_records DROP COLUMN route_provider;
ALTER TABLE call_records DROP COLUMN route_target;
ALTER TABLE call_records DROP COLUMN route_id;
DROP TABLE route_affinity;
DROP TABLE alias_targets;
DROP TABLE aliases;
DROP TABLE route_health;
