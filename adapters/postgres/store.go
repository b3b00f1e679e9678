package postgres

import "keygate/adapters/relstore"

// NewStore returns the store ports over db, using the wall clock.
func NewStore(db *DB) *relstore.Store { return relstore.New(db, nil) }
