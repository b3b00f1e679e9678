-- PostgreSQL's migration 00220 makes changes to model configurations and
-- providers notify the other replicas. A SQLite database has one process,
-- which drops its cached model configurations itself when it writes them
-- (adapters/relstore, configcache.go): nothing to change here. The number
-- is kept so both engines' migrations stay in step.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
