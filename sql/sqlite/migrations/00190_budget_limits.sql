-- Budget limits set in the console or the control API
-- (ports.BudgetLimitStore), by scope: kind 'default' (subject ''), 'user'
-- (a user id) or 'team' (an identity-provider group). Zero means no limit;
-- cost is in micro-dollars. budget_revision counts changes, so a replica
-- notices one with a single-row read; budget_alerts remembers which
-- threshold alerts were sent, once per scope, limit, threshold and period.

-- +goose Up
CREATE TABLE budget_limits (
    kind                 TEXT    NOT NULL,
    subject              TEXT    NOT NULL,
    tokens_per_day       INTEGER  NOT NULL,
    cost_per_month       INTEGER  NOT NULL,
    concurrent_runs      INTEGER  NOT NULL,
    concurrent_subagents INTEGER  NOT NULL,
    requests_per_minute  INTEGER  NOT NULL,
    tokens_per_minute    INTEGER  NOT NULL,
    updated_at           INTEGER NOT NULL,
    PRIMARY KEY (kind, subject)
);

CREATE TABLE budget_revision (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER  NOT NULL
);
INSERT INTO budget_revision (id, revision) VALUES (1, 0);

CREATE TABLE budget_alerts (
    alert_key TEXT    PRIMARY KEY,
    sent_at   INTEGER NOT NULL
);

-- +goose Down
DROP TABLE budget_alerts;
DROP TABLE budget_revision;
DROP TABLE budget_limits;
