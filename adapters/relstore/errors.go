package relstore

import (
	"context"
	"errors"
	"fmt"

	"keygate/ports"
)

// Violation is the kind of constraint a driver error broke, as an engine
// reads it from its own error codes.
type Violation uint8

// The violations [TranslateError] tells apart.
const (
	NoViolation Violation = iota
	UniqueViolation
	ForeignKeyViolation
)

// TranslateError is the translation [Tx] promises, once per error: a
// cancelled context wins over whatever the driver made of it, noRows (the
// driver's "no rows" error) is ports.ErrNotFound, a unique or primary-key
// violation ports.ErrConflict, and a foreign-key violation
// ports.ErrNotFound (a referenced row is missing). v is the engine's
// reading of err.
func TranslateError(ctx context.Context, err, noRows error, v Violation) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (%w)", ctxErr, err)
	}
	if errors.Is(err, noRows) {
		return ports.ErrNotFound
	}
	switch v {
	case UniqueViolation:
		return fmt.Errorf("%w: %w", ports.ErrConflict, err)
	case ForeignKeyViolation:
		return fmt.Errorf("%w: %w", ports.ErrNotFound, err)
	}
	return err
}
