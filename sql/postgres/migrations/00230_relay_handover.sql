-- Handing a run over when its owner dies (ports.AppendRelay, issue 32).
-- taken_by keeps an opening payload in the mailbox after a lease took it,
-- naming that lease's token, until the turn it opened made its first
-- commit (RunLease.Settle) or the lease was released: a lease that went
-- stale without either (its replica died) leaves it for the next lease of
-- the key. holder_lock is the session advisory lock the holding replica
-- keeps on its listening connection: once PostgreSQL ended that session
-- (the replica died), the lock is free and the lease is over at once,
-- without waiting for its expiry. taken_over records that a lease took
-- the key from one that had not been released (its holder died or hung).

-- +goose Up
ALTER TABLE relay_inbox ADD COLUMN taken_by BIGINT;
ALTER TABLE relay_leases ADD COLUMN holder_lock BIGINT NOT NULL DEFAULT 0;
ALTER TABLE relay_leases ADD COLUMN taken_over BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE relay_leases DROP COLUMN taken_over;
ALTER TABLE relay_leases DROP COLUMN holder_lock;
ALTER TABLE relay_inbox DROP COLUMN taken_by;
