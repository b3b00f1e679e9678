-- The groups each user's identity provider asserted at their latest
-- console request or sign-in (company mode). The Cursor proxy sees only a
-- gateway token; it maps its owner's recorded groups through the current
-- role map, so a user removed from the member groups is refused by the
-- proxy too once the console has seen them without the group.

-- +goose Up
CREATE TABLE user_groups (
    user_id TEXT        PRIMARY KEY,
    groups  JSONB       NOT NULL,
    seen_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE user_groups;
