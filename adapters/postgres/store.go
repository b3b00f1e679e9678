package postgres

import (
	"time"

	"keygate/adapters/relstore"
)

// NewStore returns the store ports over db, using the wall clock. Its model
// configurations and providers are cached while db hears every replica's
// changes to them (watchConfig).
func NewStore(db *DB) *relstore.Store { return NewStoreAt(db, nil) }

// NewStoreAt is NewStore with now as the clock for created/updated times
// (nil: the wall clock).
func NewStoreAt(db *DB, now func() time.Time) *relstore.Store {
	s := relstore.New(db, now)
	db.watched(s)
	return s
}
