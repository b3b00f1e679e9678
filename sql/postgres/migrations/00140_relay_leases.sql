-- Run ownership between replicas (ports.AppendRelay): one lease row per run
-- key names the replica that owns the run, with a fencing token drawn from
-- one sequence (never reused, even after the row is swept) and an expiry
-- the owner renews. A follower's read marks the key watched, which the
-- owner sees when it renews. ended records that the key's last stream
-- ended: payloads forwarded for it that do not open a turn are late.
-- relay_output is the output a watched owner publishes, per lease, for the
-- replicas serving the run's stream after a cut.

-- +goose Up
CREATE SEQUENCE relay_lease_tokens;
CREATE TABLE relay_leases (
    key           TEXT        PRIMARY KEY,
    token         BIGINT      NOT NULL,
    holder        TEXT        NOT NULL,
    held          BOOLEAN     NOT NULL,
    ended         BOOLEAN     NOT NULL DEFAULT false,
    expires_at    TIMESTAMPTZ NOT NULL,
    watched_until TIMESTAMPTZ NOT NULL DEFAULT '-infinity',
    released_at   TIMESTAMPTZ
);
CREATE TABLE relay_output (
    key        TEXT        NOT NULL,
    token      BIGINT      NOT NULL,
    seq        BIGINT      NOT NULL,
    frame      BYTEA       NOT NULL,
    is_end     BOOLEAN     NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (key, token, seq)
);
ALTER TABLE relay_inbox ADD COLUMN opens BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE relay_inbox DROP COLUMN opens;
DROP TABLE relay_output;
DROP TABLE relay_leases;
DROP SEQUENCE relay_lease_tokens;
