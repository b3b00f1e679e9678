package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// Store implements every store port over one [Engine].
type Store struct {
	engine Engine
	now    func() time.Time
}

// New returns a store over engine. now is the clock for created/updated
// times; nil means time.Now. Times are stored in UTC.
func New(engine Engine, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{engine: engine, now: func() time.Time { return now().UTC() }}
}

// Stores returns the store ports backed by s.
func (s *Store) Stores() ports.Stores {
	return ports.Stores{
		Conversations:  Conversations{s},
		Anchors:        Anchors{s},
		Runs:           Runs{s},
		ToolRounds:     ToolRounds{s},
		Blobs:          Blobs{s},
		Settings:       Settings{s},
		ModelConfigs:   ModelConfigs{s},
		Calls:          Calls{s},
		ContextAnchors: ContextAnchors{s},
		Prompts:        Prompts{s},
	}
}

// WithinTx implements ports.Transactor: fn gets stores whose every read and
// write goes through one engine transaction.
func (s *Store) WithinTx(ctx context.Context, fn func(ctx context.Context, st ports.Stores) error) error {
	return s.engine.Write(ctx, func(tx Tx) error {
		inner := &Store{engine: boundEngine{tx: tx}, now: s.now}
		return fn(ctx, inner.Stores())
	})
}

var _ ports.Transactor = (*Store)(nil)

// boundEngine runs everything in an already open transaction.
type boundEngine struct{ tx Tx }

func (b boundEngine) Read(ctx context.Context, fn func(Tx) error) error  { return b.run(ctx, fn) }
func (b boundEngine) Write(ctx context.Context, fn func(Tx) error) error { return b.run(ctx, fn) }

func (b boundEngine) run(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return fn(b.tx)
}

// CallRecords returns the call records: recorder, reader, lister, purger.
func (s *Store) CallRecords() Calls { return Calls{s} }

// Conversations returns the conversation store and lister.
func (s *Store) Conversations() Conversations { return Conversations{s} }

// ContextAnchors returns the context anchor store.
func (s *Store) ContextAnchors() ContextAnchors { return ContextAnchors{s} }

// Prompts returns the prompt store.
func (s *Store) Prompts() Prompts { return Prompts{s} }
