-- Teams (ports.TeamStore): identity-provider groups an administrator
-- marked as teams, with an optional allow-list of model and alias ids
-- (models, a JSON array, read only when restricted), and the team each user
-- chose to be charged to (ignored while they are not in it).

-- +goose Up
CREATE TABLE teams (
    name       TEXT    PRIMARY KEY,
    restricted BOOLEAN NOT NULL,
    models     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE team_choices (
    user_id    TEXT    PRIMARY KEY,
    team       TEXT    NOT NULL,
    chosen_at  INTEGER NOT NULL
);

-- +goose Down
DROP TABLE team_choices;
DROP TABLE teams;
