package app

import (
	"keygate/adapters/relstore"
	"keygate/app/memories"
)

// NewMemories is the use case of Cursor's memories kept by Keygate, per
// user, on the store: served on the KnowledgeBase routes and recalled into
// each of the user's turns.
func NewMemories(store *relstore.Store) *memories.Service { return memories.New(store.Memories()) }
