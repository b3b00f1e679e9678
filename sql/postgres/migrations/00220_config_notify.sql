-- A change to a model configuration, a provider (whose fields the model
-- configurations join in) or a provider's key notifies channel
-- keygate_config once per statement, at commit: every replica listens and
-- drops its cached model configurations and providers (adapters/postgres,
-- config.go).

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION keygate_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('keygate_config', '');
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER model_configs_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON model_configs
    FOR EACH STATEMENT EXECUTE FUNCTION keygate_config_changed();
CREATE TRIGGER providers_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON providers
    FOR EACH STATEMENT EXECUTE FUNCTION keygate_config_changed();
CREATE TRIGGER provider_keys_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON provider_keys
    FOR EACH STATEMENT EXECUTE FUNCTION keygate_config_changed();

-- +goose Down
DROP TRIGGER provider_keys_notify ON provider_keys;
DROP TRIGGER providers_notify ON providers;
DROP TRIGGER model_configs_notify ON model_configs;
DROP FUNCTION keygate_config_changed();
