package sqlite

import (
	"context"
	"time"

	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) GetFingerprint(ctx context.Context, name string) (string, error) {
	fp, err := t.q.GetFingerprint(ctx, name)
	return fp, interpretError(ctx, err)
}

func (t tx) InsertFingerprint(ctx context.Context, name, fp string, now time.Time) error {
	err := t.q.InsertFingerprint(ctx, sqlitedb.InsertFingerprintParams{Name: name, Fingerprint: fp, UpdatedAt: ms(now)})
	return interpretError(ctx, err)
}

func (t tx) ReplaceFingerprint(ctx context.Context, name, old, fp string, now time.Time) (bool, error) {
	n, err := t.q.ReplaceFingerprint(ctx, sqlitedb.ReplaceFingerprintParams{Name: name, Old: old, Fingerprint: fp, UpdatedAt: ms(now)})
	return n > 0, interpretError(ctx, err)
}
