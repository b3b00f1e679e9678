-- A cloud provider's account settings (ports.CloudSettings: region,
-- project, credential source, profile, role, token file) as a JSON object;
-- '' for a provider that is not a cloud one. Nothing secret: secret
-- material is a sealed key of provider_keys.

-- +goose Up
ALTER TABLE providers ADD COLUMN cloud TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE providers DROP COLUMN cloud;
