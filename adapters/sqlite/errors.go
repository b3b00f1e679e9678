package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"keygate/adapters/relstore"
)

// interpretError translates a driver error into the ports vocabulary, once
// (relstore.TranslateError), reading SQLite's extended result codes.
func interpretError(ctx context.Context, err error) error {
	return relstore.TranslateError(ctx, err, sql.ErrNoRows, violationOf(err))
}

func violationOf(err error) relstore.Violation {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return relstore.UniqueViolation
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return relstore.ForeignKeyViolation
		}
	}
	return relstore.NoViolation
}
