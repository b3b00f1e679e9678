-- PostgreSQL's migration 00220 makes changes to model configurations,
-- providers and their keys notify the other replicas. A SQLite database has
-- one process, which drops its cached copies itself when it writes them
-- (adapters/relstore, configcache.go): nothing to change here. The number
-- is kept so both engines' migrations stay in step.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
