-- The program that asked for each provider call of the compatible API
-- (claude-code, codex, opencode, else the caller's user agent product),
-- shown on the console's Calls page. Empty for Keygate's own features
-- (Agent turns, Tab, connection tests) and for calls recorded before.

-- +goose Up
ALTER TABLE call_records ADD COLUMN client TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE call_records DROP COLUMN client;
