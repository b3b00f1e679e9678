package relstore

// Schema is a database's migration state: the version it was migrated to
// (0 when it has none yet) and the latest version this build knows.
type Schema struct {
	Current, Latest int64
}

// Pending reports migrations this build would apply at start.
func (s Schema) Pending() bool { return s.Current < s.Latest }

// Newer reports a database migrated by a later build than this one: this
// build does not know its schema.
func (s Schema) Newer() bool { return s.Current > s.Latest }
