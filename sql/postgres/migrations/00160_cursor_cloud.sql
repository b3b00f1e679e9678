-- The ledger of what went to Cursor's own service: one row per UTC day,
-- user, route and decision (passed or refused), with the requests and the
-- bytes sent (up) and received (down).

-- +goose Up
CREATE TABLE cursor_cloud_usage (
    day        TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    service    TEXT    NOT NULL,
    method     TEXT    NOT NULL,
    decision   TEXT    NOT NULL,
    requests   BIGINT NOT NULL,
    bytes_up   BIGINT NOT NULL,
    bytes_down BIGINT NOT NULL,
    PRIMARY KEY (day, user_id, service, method, decision)
);
CREATE INDEX cursor_cloud_usage_user ON cursor_cloud_usage (user_id, day);

-- +goose Down
DROP TABLE cursor_cloud_usage;
