package relstore

import (
	"time"

	"keygate/ports"
)

// Store implements every store port over one [Engine].
type Store struct {
	engine Engine
	now    func() time.Time
	// configs caches the model configurations (configcache.go).
	configs *configCache
}

// New returns a store over engine. now is the clock for created/updated
// times; nil means time.Now. Times are stored in UTC.
func New(engine Engine, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	configs := &configCache{on: true}
	return &Store{engine: watchedEngine{Engine: engine, cache: configs}, now: func() time.Time { return now().UTC() }, configs: configs}
}

// Stores returns the store ports backed by s.
func (s *Store) Stores() ports.Stores {
	return ports.Stores{
		Conversations:  Conversations{s},
		Runs:           Runs{s},
		ToolRounds:     ToolRounds{s},
		Blobs:          Blobs{s},
		Settings:       Settings{s},
		ModelConfigs:   ModelConfigs{s},
		Providers:      Providers{s},
		Aliases:        Routing{s},
		RouteHealth:    Routing{s},
		RouteAffinity:  Routing{s},
		RateWindows:    Routing{s},
		Calls:          Calls{s},
		ContextAnchors: ContextAnchors{s},
		Prompts:        Prompts{s},
		Eraser:         Eraser{s},
	}
}

// CallRecords returns the call records: recorder, reader, lister, purger.
func (s *Store) CallRecords() Calls { return Calls{s} }

// Conversations returns the conversation store and lister.
func (s *Store) Conversations() Conversations { return Conversations{s} }

// ContextAnchors returns the context anchor store.
func (s *Store) ContextAnchors() ContextAnchors { return ContextAnchors{s} }

// Fates returns the store of Tab suggestions' fates: recorder, lister and
// purger.
func (s *Store) Fates() Fates { return Fates{s} }

// Memories returns the store of users' memories.
func (s *Store) Memories() Memories { return Memories{s} }

// ModelMappings returns the store of Cursor's model ids mapped onto
// Keygate models.
func (s *Store) ModelMappings() ModelMappings { return ModelMappings{s} }

// Prompts returns the prompt store.
func (s *Store) Prompts() Prompts { return Prompts{s} }
