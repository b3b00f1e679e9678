-- The users and groups an identity provider provisions over SCIM
-- (ports.Directory): name is a user's userName (the Keygate user id it signs
-- in as) or a group's displayName, unique per kind without regard to case
-- (name_key is its lower case); members and attributes are JSON.
-- user_cutoffs (ports.Deprovisions) holds the users whose access was cut:
-- refused while blocked, and every credential issued before cut_at refused
-- for good.

-- +goose Up
CREATE TABLE directory_entries (
    kind        TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    name_key    TEXT    NOT NULL,
    external_id TEXT    NOT NULL,
    active      INTEGER NOT NULL,
    members     TEXT    NOT NULL,
    attributes  TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE UNIQUE INDEX directory_entries_name ON directory_entries (kind, name_key);

CREATE TABLE user_cutoffs (
    user_id TEXT    PRIMARY KEY,
    blocked INTEGER NOT NULL,
    cut_at  INTEGER NOT NULL
);

-- +goose Down
DROP TABLE user_cutoffs;
DROP TABLE directory_entries;
