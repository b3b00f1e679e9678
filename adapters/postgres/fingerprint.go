package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

func (t tx) GetFingerprint(ctx context.Context, name string) (string, error) {
	fp, err := t.q.GetFingerprint(ctx, name)
	return fp, interpretError(ctx, err)
}

func (t tx) InsertFingerprint(ctx context.Context, name, fp string, now time.Time) error {
	err := t.q.InsertFingerprint(ctx, pgdb.InsertFingerprintParams{Name: name, Fingerprint: fp, UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) ReplaceFingerprint(ctx context.Context, name, old, fp string, now time.Time) (bool, error) {
	n, err := t.q.ReplaceFingerprint(ctx, pgdb.ReplaceFingerprintParams{Name: name, Old: old, Fingerprint: fp, UpdatedAt: now})
	return n > 0, interpretError(ctx, err)
}
