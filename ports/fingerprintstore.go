package ports

import "context"

// FingerprintStore keeps the fingerprints every replica of a deployment must
// agree on, such as the secret key's and the company CA's, under fixed
// names. Replicas sharing one database compare theirs at start, so that one
// started with another key or CA is refused rather than failing later where
// no user sees why. A fingerprint reveals nothing of what it identifies;
// the store does not interpret it.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type FingerprintStore interface {
	// Fingerprint returns the fingerprint recorded under name, or
	// ErrNotFound.
	Fingerprint(ctx context.Context, name string) (string, error)

	// RecordFingerprint records fp under name unless a fingerprint is
	// recorded there already, and returns the one recorded after the call:
	// fp when this call recorded it, else the earlier one, unchanged. Of
	// concurrent first records exactly one wins, and every caller learns
	// which.
	RecordFingerprint(ctx context.Context, name, fp string) (recorded string, err error)

	// ReplaceFingerprint replaces the fingerprint recorded under name by fp
	// if it is old; ErrConflict when another fingerprint is recorded there
	// (someone replaced it first), ErrNotFound when none is.
	ReplaceFingerprint(ctx context.Context, name, old, fp string) error
}
