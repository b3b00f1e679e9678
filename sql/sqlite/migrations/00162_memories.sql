-- Users' memories (ports.MemoryStore): what a user asked Cursor's Agent
-- to remember, listed and edited from Cursor's settings and projected into
-- each of that user's turns. Every query names the user, so a member never
-- reaches another's memory.

-- +goose Up
CREATE TABLE memories (
    id         TEXT    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    title      TEXT    NOT NULL,
    knowledge  TEXT    NOT NULL,
    git_origin TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX memories_user ON memories (user_id, created_at, id);

-- +goose Down
DROP TABLE memories;
