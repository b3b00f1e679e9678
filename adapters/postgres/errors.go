package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"keygate/ports"
)

// PostgreSQL error codes interpretError maps.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

// interpretError translates a pgx error into the ports vocabulary, once: a
// cancelled context wins, no rows is ErrNotFound, a unique violation is
// ErrConflict and a foreign-key violation ErrNotFound (a referenced row is
// missing).
func interpretError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (%v)", ctxErr, err)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ports.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case uniqueViolation:
			return fmt.Errorf("%w: %v", ports.ErrConflict, err)
		case foreignKeyViolation:
			return fmt.Errorf("%w: %v", ports.ErrNotFound, err)
		}
	}
	return err
}
