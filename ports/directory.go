package ports

import (
	"context"
	"time"
)

// Directory entry kinds.
const (
	DirectoryUser  = "User"
	DirectoryGroup = "Group"
)

// DirectoryEntry is a user or a group an identity provider provisioned
// (SCIM). A user's Name is their userName, the user id they sign in as; a
// group's Name is its displayName. Names are unique per kind without
// regard to case.
type DirectoryEntry struct {
	Kind       string
	ID         string
	Name       string
	ExternalID string
	// Active is false for a user the identity provider deactivated.
	Active bool
	// Members are the ids of a group's member users.
	Members []string
	// Attributes is the rest of the resource as the provider sent it (a
	// JSON object), kept to answer it back.
	Attributes []byte
	Created    time.Time
	Updated    time.Time
}

// Directory keeps provisioned users and groups.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type Directory interface {
	// CreateEntry stores e, or returns ErrConflict when its kind holds its
	// id or its name (in any case) already.
	CreateEntry(ctx context.Context, e DirectoryEntry) error

	// ReplaceEntry stores e over the entry of its kind and id, keeping its
	// Created time, or returns ErrNotFound; ErrConflict when another entry
	// of its kind holds its name.
	ReplaceEntry(ctx context.Context, e DirectoryEntry) error

	// Entry returns the entry (kind, id), or ErrNotFound.
	Entry(ctx context.Context, kind, id string) (DirectoryEntry, error)

	// Entries returns at most limit entries of kind, oldest first.
	Entries(ctx context.Context, kind string, limit int) ([]DirectoryEntry, error)

	// DeleteEntry removes the entry (kind, id), or returns ErrNotFound.
	DeleteEntry(ctx context.Context, kind, id string) error
}

// Deprovisions remembers the users whose access was cut (an identity
// provider deactivated or deleted them): every replica refuses them while
// they are blocked, and refuses for good every credential issued before
// their latest cut, even after they are reinstated.
//
// All methods return ctx.Err() (wrapped) on a cancelled context.
type Deprovisions interface {
	// Block refuses userID from now on and records at as their latest cut
	// (an earlier at than the recorded cut keeps the recorded one).
	Block(ctx context.Context, userID string, at time.Time) error

	// Unblock admits userID again; their latest cut stays.
	Unblock(ctx context.Context, userID string) error

	// Cutoff reports whether userID is blocked and the time of their
	// latest cut (zero, and not blocked, when they were never cut).
	Cutoff(ctx context.Context, userID string) (blocked bool, cut time.Time, err error)
}
