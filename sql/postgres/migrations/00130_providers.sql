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
    id             TEXT        PRIMARY KEY,
    name           TEXT        NOT NULL,
    provider_kind  TEXT        NOT NULL,
    base_url       TEXT        NOT NULL,
    use_full_url   BOOLEAN     NOT NULL,
    custom_headers JSONB       NOT NULL,
    region         TEXT        NOT NULL,
    key_strategy   TEXT        NOT NULL,
    cool_down_ms   BIGINT      NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE provider_keys (
    id              TEXT        PRIMARY KEY,
    provider_id     TEXT        NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    position        BIGINT      NOT NULL,
    sealed_key      BYTEA       NOT NULL,
    weight          BIGINT      NOT NULL,
    enabled         BOOLEAN     NOT NULL,
    disabled_reason TEXT        NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX provider_keys_provider ON provider_keys (provider_id, position);

ALTER TABLE model_configs ADD COLUMN provider_id TEXT NOT NULL DEFAULT '';
ALTER TABLE model_configs ADD COLUMN requests_per_minute BIGINT NOT NULL DEFAULT 0;
ALTER TABLE model_configs ADD COLUMN tokens_per_minute BIGINT NOT NULL DEFAULT 0;
CREATE INDEX model_configs_provider ON model_configs (provider_id);

-- One provider per group of rows that agree on protocol, URL, headers and
-- sealed key, named after the group's first model id.
UPDATE model_configs m SET provider_id = 'p-' || g.first
FROM (SELECT provider_kind, base_url, use_full_url, custom_headers, sealed_api_key, min(id) AS first
      FROM model_configs GROUP BY provider_kind, base_url, use_full_url, custom_headers, sealed_api_key) g
WHERE g.provider_kind = m.provider_kind AND g.base_url = m.base_url AND g.use_full_url = m.use_full_url
  AND g.custom_headers = m.custom_headers AND g.sealed_api_key = m.sealed_api_key;

-- A provider is named after its host, without any user information.
INSERT INTO providers (id, name, provider_kind, base_url, use_full_url, custom_headers, region,
                       key_strategy, cool_down_ms, created_at, updated_at)
SELECT provider_id, coalesce(substring(base_url FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#]*@)?([^/?#@]+)'), base_url),
       provider_kind, base_url, use_full_url, custom_headers, '', 'round_robin', 0, created_at, updated_at
FROM model_configs WHERE id = substr(provider_id, 3);

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
ALTER TABLE model_configs ADD COLUMN sealed_api_key BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE model_configs ADD COLUMN custom_headers JSONB NOT NULL DEFAULT 'null';
-- A model takes back its provider's settings and first enabled key (the
-- first key when none is enabled).
UPDATE model_configs m SET provider_kind = p.provider_kind, base_url = p.base_url, use_full_url = p.use_full_url,
    custom_headers = p.custom_headers,
    sealed_api_key = coalesce((SELECT k.sealed_key FROM provider_keys k WHERE k.provider_id = p.id
                               ORDER BY k.enabled DESC, k.position, k.id LIMIT 1), '\x')
FROM providers p WHERE p.id = m.provider_id;
DROP INDEX model_configs_provider;
ALTER TABLE model_configs DROP COLUMN tokens_per_minute;
ALTER TABLE model_configs DROP COLUMN requests_per_minute;
ALTER TABLE model_configs DROP COLUMN provider_id;
DROP TABLE provider_keys;
DROP TABLE providers;
