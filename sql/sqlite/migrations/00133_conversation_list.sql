-- The console's conversation list names each conversation's latest model
-- from its call records: an index finds a conversation's latest call.

-- +goose Up
CREATE INDEX call_records_conversation ON call_records (conversation_id, request_started_at);

-- +goose Down
DROP INDEX call_records_conversation;
