package relstore

import (
	"database/sql"
	"time"
)

// Stamp is the Go type an engine's generated code gives a time column:
// int64 Unix milliseconds on SQLite, time.Time on PostgreSQL. Every other
// column type is the same on both engines (sqlc.yaml lines them up), so a
// row type below, instantiated with the engine's Stamp, is the engine's
// generated struct converted, and the row is mapped here once.
type Stamp interface{ int64 | time.Time }

// StampOf is t as a time column of an engine. The zero time is each
// engine's "never": 0 on SQLite, 0001-01-01 on PostgreSQL.
func StampOf[T Stamp](t time.Time) T {
	var out T
	switch p := any(&out).(type) {
	case *int64:
		if !t.IsZero() {
			*p = t.UnixMilli()
		}
	case *time.Time:
		*p = t
	}
	return out
}

// TimeOf reads a time column back, in UTC; the stored zero stays zero.
func TimeOf[T Stamp](v T) time.Time {
	switch v := any(v).(type) {
	case int64:
		if v == 0 {
			return time.Time{}
		}
		return time.UnixMilli(v).UTC()
	case time.Time:
		if v.IsZero() {
			return time.Time{}
		}
		return v.UTC()
	}
	return time.Time{}
}

// NullString is an optional text column: "" is NULL.
func NullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
