package ports

import "errors"

// Sentinel errors shared by the store ports. Match them with errors.Is; an
// adapter wraps them with context but never replaces them.
var (
	// ErrNotFound: the named conversation, checkpoint, run, round, blob,
	// setting or configuration does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a write would replace something stored under the same
	// identity with different content (a tool round started twice with
	// different calls, a run id claimed twice).
	ErrConflict = errors.New("conflict")
	// ErrNotOwner: the run is no longer the running, active run of its
	// conversation (it was preempted by a newer run, or it finished), so it
	// may not write to the conversation any more.
	ErrNotOwner = errors.New("run does not own the conversation")
	// ErrBlobHashMismatch: the bytes put under a blob id do not hash to it.
	ErrBlobHashMismatch = errors.New("blob hash mismatch")
	// ErrBlobTooLarge: the blob exceeds [MaxBlobSize].
	ErrBlobTooLarge = errors.New("blob too large")
	// ErrInvalidSetting: a setting value is not valid JSON.
	ErrInvalidSetting = errors.New("setting value is not valid JSON")
)
