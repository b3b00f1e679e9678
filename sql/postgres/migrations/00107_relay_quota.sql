-- Bounds on the append relay's mailbox (ports.AppendRelay): each payload
-- names its owner (the user who sent the append) and what it counts, and
-- relay_usage keeps the sum per owner, updated in the statements that add
-- and remove payloads, so that a forward checks its owner's and everyone's
-- total without scanning the mailbox.

-- +goose Up
ALTER TABLE relay_inbox ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE relay_inbox ADD COLUMN size BIGINT NOT NULL DEFAULT 0;
CREATE INDEX relay_inbox_created ON relay_inbox (created_at);
CREATE TABLE relay_usage (
    owner TEXT   PRIMARY KEY,
    bytes BIGINT NOT NULL
);

-- +goose Down
DROP TABLE relay_usage;
DROP INDEX relay_inbox_created;
ALTER TABLE relay_inbox DROP COLUMN size;
ALTER TABLE relay_inbox DROP COLUMN owner;
