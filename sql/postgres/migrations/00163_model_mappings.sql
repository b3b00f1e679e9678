-- Cursor's model ids mapped onto Keygate models or aliases
-- (ports.ModelMappingStore): a turn the client pins to cursor_model runs on
-- target, a model configuration or alias id.

-- +goose Up
CREATE TABLE model_mappings (
    cursor_model TEXT        PRIMARY KEY,
    target       TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE model_mappings;
