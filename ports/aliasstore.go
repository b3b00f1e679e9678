package ports

import (
	"context"
	"time"

	"keygate/domain/routing"
)

// AliasStore holds the aliases Cursor's model picker shows beside the
// models: each routes its calls over an ordered or weighted list of
// targets (model configurations).
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type AliasStore interface {
	// Aliases returns every alias ordered by SortOrder, then ID, each with
	// its targets in position order.
	Aliases(ctx context.Context) ([]Alias, error)

	// Alias returns one alias with its targets, or ErrNotFound.
	Alias(ctx context.Context, id string) (Alias, error)

	// PutAlias creates or replaces the alias with a.ID and its targets, in
	// one transaction. A replacement keeps the original CreatedAt;
	// UpdatedAt is set by the store.
	PutAlias(ctx context.Context, a Alias) error

	// DeleteAlias removes an alias, or returns ErrNotFound.
	DeleteAlias(ctx context.Context, id string) error
}

// Alias is one picker entry that routes over several targets.
type Alias struct {
	// ID is the model hash under which Cursor sees the alias; it never
	// equals a model configuration's id.
	ID          string
	SortOrder   int
	DisplayName string
	GroupName   string
	Tooltip     string
	// Enabled publishes the alias to Cursor.
	Enabled  bool
	Strategy routing.TargetStrategy
	// FirstTokenTimeout moves a call to the next target when the first
	// output has not arrived this long after the request was sent; 0 waits
	// as long as the provider client does.
	FirstTokenTimeout time.Duration
	Targets           []AliasTarget
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// AliasTarget is one target of an alias.
type AliasTarget struct {
	// ModelID names the model configuration (a model on its provider).
	ModelID string
	// Weight is the target's share of new conversations under
	// TargetsWeighted; below 1 counts as 1.
	Weight int
	// Drained takes the target out of the alias: no call goes there, and
	// conversations that stayed on it move.
	Drained bool
}
