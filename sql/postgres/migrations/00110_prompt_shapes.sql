-- What the cache insight keeps of each call's request (ports.PromptStore):
-- the whole request (kind 'request', JSON) only for calls made in detailed
-- mode, otherwise its shape (kind 'shape': digests, roles and sizes, no text
-- of the conversation). created_at is the call's start; retention deletes
-- both kinds by it.

-- +goose Up
ALTER TABLE prompts RENAME COLUMN request TO body;
ALTER TABLE prompts ADD COLUMN kind TEXT NOT NULL DEFAULT 'request';
ALTER TABLE prompts ALTER COLUMN kind DROP DEFAULT;
-- Earlier versions kept every call's whole request whatever the privacy
-- setting, and never deleted it. Keep those of calls recorded in detail
-- (their request is in call_requests too); the rest is what must not be
-- kept, and turning it into shapes would need a pass in Go over the whole
-- history at start. Only the insight of those past calls is lost.
DELETE FROM prompts WHERE NOT EXISTS (SELECT 1 FROM call_requests q WHERE q.call_id = prompts.call_id);
CREATE INDEX prompts_created ON prompts (created_at);

-- +goose Down
DROP INDEX prompts_created;
DELETE FROM prompts WHERE kind <> 'request';
ALTER TABLE prompts DROP COLUMN kind;
ALTER TABLE prompts RENAME COLUMN body TO request;
