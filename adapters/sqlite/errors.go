package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"keygate/ports"
)

// interpretError translates a driver error into the ports vocabulary, once:
// a cancelled context wins over whatever the driver made of it, no rows is
// ErrNotFound, a unique or primary-key violation is ErrConflict, and a
// foreign-key violation is ErrNotFound (a referenced row is missing).
func interpretError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (%v)", ctxErr, err)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ports.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", ports.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %v", ports.ErrNotFound, err)
		}
	}
	return err
}
