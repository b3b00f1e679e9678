-- The user whose turn made each provider call, so that call lists and
-- dashboards can be filtered and scoped by user. Calls recorded before
-- this migration belong to no user ('').

-- +goose Up
ALTER TABLE call_records ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
CREATE INDEX call_records_user_started ON call_records (user_id, request_started_at);

-- +goose Down
DROP INDEX call_records_user_started;
ALTER TABLE call_records DROP COLUMN user_id;
