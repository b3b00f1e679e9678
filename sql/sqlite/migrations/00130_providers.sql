-- Providers as objects of their own: a provider is where a model is called
-- (protocol, base URL, headers, a region label) and a pool of keys; a model
-- names its provider and keeps what is the model's (the upstream model id,
-- its parameters, its per-minute limits as a route target).
--
-- Each model row becomes a reference to a provider made from its own base
-- URL, headers and key. Rows that agree on all of them (a duplicated model
-- copies its sealed key byte for byte) share one provider. Each sealed key
-- moves as it is: it stays sealed, and a key bound to its origin stays
-- bound, since the provider keeps the row's base URL.

-- +goose Up
CREATE TABLE providers (
    id             TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,
    provider_kind  TEXT    NOT NULL,
    base_url       TEXT    NOT NULL,
    use_full_url   BOOLEAN NOT NULL,
    custom_headers TEXT    NOT NULL,
    region         TEXT    NOT NULL,
    key_strategy   TEXT    NOT NULL,
    cool_down_ms   INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

CREATE TABLE provider_keys (
    id              TEXT    PRIMARY KEY,
    provider_id     TEXT    NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    sealed_key      BLOB    NOT NULL,
    weight          INTEGER NOT NULL,
    enabled         BOOLEAN NOT NULL,
    disabled_reason TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX provider_keys_provider ON provider_keys (provider_id, position);

ALTER TABLE model_configs ADD COLUMN provider_id TEXT NOT NULL DEFAULT '';
ALTER TABLE model_configs ADD COLUMN requests_per_minute INTEGER NOT NULL DEFAULT 0;
ALTER TABLE model_configs ADD COLUMN tokens_per_minute INTEGER NOT NULL DEFAULT 0;
CREATE INDEX model_configs_provider ON model_configs (provider_id);

-- One provider per group of rows that agree on protocol, URL, headers and
-- sealed key, named after the group's first model id.
UPDATE model_configs SET provider_id = 'p-' || (
    SELECT min(o.id) FROM model_configs o
    WHERE o.provider_kind = model_configs.provider_kind AND o.base_url = model_configs.base_url
      AND o.use_full_url = model_configs.use_full_url AND o.custom_headers = model_configs.custom_headers
      AND o.sealed_api_key = model_configs.sealed_api_key);

INSERT INTO providers (id, name, provider_kind, base_url, use_full_url, custom_headers, region,
                       key_strategy, cool_down_ms, created_at, updated_at)
SELECT provider_id, substr(base_url, instr(base_url, '://') + 3), provider_kind, base_url, use_full_url,
       custom_headers, '', 'round_robin', 0, created_at, updated_at
FROM model_configs WHERE id = substr(provider_id, 3);

-- A provider is named after its host: cut the name at the path, query or
-- fragment, and drop any user information.
UPDATE providers SET name = substr(name, 1, instr(name, '/') - 1) WHERE instr(name, '/') > 0;
UPDATE providers SET name = substr(name, 1, instr(name, '?') - 1) WHERE instr(name, '?') > 0;
UPDATE providers SET name = substr(name, 1, instr(name, '#') - 1) WHERE instr(name, '#') > 0;
UPDATE providers SET name = substr(name, instr(name, '@') + 1) WHERE instr(name, '@') > 0;
UPDATE providers SET name = substr(name, instr(name, '@') + 1) WHERE instr(name, '@') > 0;

INSERT INTO provider_keys (id, provider_id, position, sealed_key, weight, enabled, disabled_reason,
                           created_at, updated_at)
SELECT 'k-' || id, provider_id, 0, sealed_api_key, 1, TRUE, '', created_at, updated_at
FROM model_configs WHERE id = substr(provider_id, 3) AND length(sealed_api_key) > 0;

ALTER TABLE model_configs DROP COLUMN provider_kind;
ALTER TABLE model_configs DROP COLUMN base_url;
ALTER TABLE model_configs DROP COLUMN use_full_url;
ALTER TABLE model_configs DROP COLUMN sealed_api_key;
ALTER TABLE model_configs DROP COLUMN custom_headers;

-- +goose Down
ALTER TABLE model_configs ADD COLUMN provider_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE model_configs ADD COLUMN base_url TEXT NOT NULL DEFAULT '';
ALTER TABLE model_configs ADD COLUMN use_full_url BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE model_configs ADD COLUMN sealed_api_key BLOB NOT NULL DEFAULT x'';
ALTER TABLE model_configs ADD COLUMN custom_headers TEXT NOT NULL DEFAULT 'null';
-- A model takes back its provider's settings and first enabled key (the
-- first key when none is enabled).
UPDATE model_configs SET
    provider_kind  = coalesce((SELECT p.provider_kind FROM providers p WHERE p.id = model_configs.provider_id), ''),
    base_url       = coalesce((SELECT p.base_url FROM providers p WHERE p.id = model_configs.provider_id), ''),
    use_full_url   = coalesce((SELECT p.use_full_url FROM providers p WHERE p.id = model_configs.provider_id), FALSE),
    custom_headers = coalesce((SELECT p.custom_headers FROM providers p WHERE p.id = model_configs.provider_id), 'null'),
    sealed_api_key = coalesce((SELECT k.sealed_key FROM provider_keys k WHERE k.provider_id = model_configs.provider_id
                               ORDER BY k.enabled DESC, k.position, k.id LIMIT 1), x'');
DROP INDEX model_configs_provider;
ALTER TABLE model_configs DROP COLUMN tokens_per_minute;
ALTER TABLE model_configs DROP COLUMN requests_per_minute;
ALTER TABLE model_configs DROP COLUMN provider_id;
DROP TABLE provider_keys;
DROP TABLE providers;
