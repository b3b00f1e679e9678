-- A provider's custom headers are sealed like its keys: they often carry
-- a credential of their own (CF-Access-Client-Secret, an organisation
-- token). sealed_headers holds them as the secret box's ciphertext, bound
-- to the provider's origin. SQL cannot seal, so the clear values stay in
-- custom_headers until Keygate, starting, seals each provider's headers
-- into sealed_headers and sets custom_headers to 'null' in one write
-- (Models.BindStoredKeys): after that start no clear value is left.

-- +goose Up
ALTER TABLE providers ADD COLUMN sealed_headers BYTEA NOT NULL DEFAULT '\x';

-- +goose Down
-- Sealed headers cannot be opened here: a downgrade drops them, and an
-- administrator enters them again.
ALTER TABLE providers DROP COLUMN sealed_headers;
