-- Per-user usage counters (one row per user and period key, such as
-- d2026-11-30 or m2026-11) and run leases for the concurrent-runs limit.

-- +goose Up
CREATE TABLE usage_counters (
    user_id     TEXT    NOT NULL,
    period      TEXT    NOT NULL,
    tokens      INTEGER NOT NULL,
    cost_micros INTEGER NOT NULL,
    PRIMARY KEY (user_id, period)
);

CREATE TABLE run_leases (
    run_id     TEXT    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX run_leases_user ON run_leases (user_id, expires_at);

-- +goose Down
DROP TABLE run_leases;
DROP TABLE usage_counters;
