-- What each user did with each Cursor Tab suggestion (ports.SuggestionFates):
-- one row per user and StreamCpp request id, the latest fate reported
-- (accepted, partial, rejected). The call records of the prediction carry
-- the request id as run_id, which is how the dashboard joins them.

-- +goose Up
CREATE TABLE tab_fates (
    user_id     TEXT    NOT NULL,
    request_id  TEXT    NOT NULL,
    fate        TEXT    NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, request_id)
);
CREATE INDEX tab_fates_recorded ON tab_fates (recorded_at);

-- +goose Down
DROP TABLE tab_fates;
