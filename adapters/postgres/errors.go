package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"keygate/adapters/relstore"
)

// PostgreSQL error codes interpretError maps.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

// interpretError translates a pgx error into the ports vocabulary, once
// (relstore.TranslateError), reading PostgreSQL's SQLSTATE codes.
func interpretError(ctx context.Context, err error) error {
	return relstore.TranslateError(ctx, err, pgx.ErrNoRows, violationOf(err))
}

func violationOf(err error) relstore.Violation {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case uniqueViolation:
			return relstore.UniqueViolation
		case foreignKeyViolation:
			return relstore.ForeignKeyViolation
		}
	}
	return relstore.NoViolation
}
