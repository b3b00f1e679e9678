-- Per-minute counters of requests and tokens, one row per scope (such as
-- "user:<id>" or "target:<model id>") and minute, shared by every replica:
-- the requests-per-minute and tokens-per-minute limits of users and route
-- targets. A scope's older minutes are deleted as its new ones start.

-- +goose Up
CREATE TABLE rate_windows (
    scope        TEXT    NOT NULL,
    window_start INTEGER NOT NULL,
    requests     INTEGER NOT NULL,
    tokens       INTEGER NOT NULL,
    PRIMARY KEY (scope, window_start)
);

-- +goose Down
DROP TABLE rate_windows;
