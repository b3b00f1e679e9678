-- The feature each provider call served (callrecord.Kind: agent, tab,
-- test), so that the console filters calls by it and the dashboard keeps
-- Tab predictions apart from Agent turns. Calls recorded before this
-- migration were all Agent calls or connection tests; they read as
-- 'agent'.

-- +goose Up
ALTER TABLE call_records ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent';

-- +goose Down
ALTER TABLE call_records DROP COLUMN kind;
