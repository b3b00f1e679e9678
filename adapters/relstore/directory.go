package relstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"keygate/ports"
)

// DirectoryRow is a directory entry as stored: members and attributes as
// JSON text.
type DirectoryRow struct {
	Kind, ID, Name, NameKey, ExternalID string
	Active                              bool
	Members, Attributes                 string
	Created, Updated                    time.Time
}

// directoryRows are provisioned users and groups, and users' cutoffs.
type directoryRows interface {
	InsertDirectoryEntry(ctx context.Context, r DirectoryRow) error
	// UpdateDirectoryEntry returns ErrNotFound when no row matched.
	UpdateDirectoryEntry(ctx context.Context, r DirectoryRow) error
	GetDirectoryEntry(ctx context.Context, kind, id string) (DirectoryRow, error)
	ListDirectoryEntries(ctx context.Context, kind string, limit int) ([]DirectoryRow, error)
	// DeleteDirectoryEntry returns ErrNotFound when no row matched.
	DeleteDirectoryEntry(ctx context.Context, kind, id string) error
	UpsertUserCutoff(ctx context.Context, userID string, blocked bool, at time.Time) error
	GetUserCutoff(ctx context.Context, userID string) (bool, time.Time, error)
}

// Directory implements ports.Directory and ports.Deprovisions.
type Directory struct{ s *Store }

var (
	_ ports.Directory    = Directory{}
	_ ports.Deprovisions = Directory{}
)

// Directory returns the store of provisioned users and groups and of
// users' cutoffs.
func (s *Store) Directory() Directory { return Directory{s} }

func toDirectoryRow(e ports.DirectoryEntry) (DirectoryRow, error) {
	members := e.Members
	if members == nil {
		members = []string{}
	}
	m, err := json.Marshal(members)
	if err != nil {
		return DirectoryRow{}, err
	}
	attrs := string(e.Attributes)
	if attrs == "" {
		attrs = "{}"
	}
	if !json.Valid([]byte(attrs)) {
		return DirectoryRow{}, errors.New("attributes are not JSON")
	}
	return DirectoryRow{Kind: e.Kind, ID: e.ID, Name: e.Name, NameKey: strings.ToLower(e.Name), ExternalID: e.ExternalID,
		Active: e.Active, Members: string(m), Attributes: attrs, Created: e.Created.UTC(), Updated: e.Updated.UTC()}, nil
}

func fromDirectoryRow(r DirectoryRow) (ports.DirectoryEntry, error) {
	var members []string
	if err := json.Unmarshal([]byte(r.Members), &members); err != nil {
		return ports.DirectoryEntry{}, err
	}
	return ports.DirectoryEntry{Kind: r.Kind, ID: r.ID, Name: r.Name, ExternalID: r.ExternalID, Active: r.Active,
		Members: members, Attributes: []byte(r.Attributes), Created: r.Created, Updated: r.Updated}, nil
}

// CreateEntry implements ports.Directory.
func (d Directory) CreateEntry(ctx context.Context, e ports.DirectoryEntry) error {
	row, err := toDirectoryRow(e)
	if err != nil {
		return fmt.Errorf("create %s %s: %w", e.Kind, e.ID, err)
	}
	if err := d.s.engine.Write(ctx, func(tx Tx) error { return tx.InsertDirectoryEntry(ctx, row) }); err != nil {
		return fmt.Errorf("create %s %s: %w", e.Kind, e.ID, err)
	}
	return nil
}

// ReplaceEntry implements ports.Directory.
func (d Directory) ReplaceEntry(ctx context.Context, e ports.DirectoryEntry) error {
	row, err := toDirectoryRow(e)
	if err != nil {
		return fmt.Errorf("replace %s %s: %w", e.Kind, e.ID, err)
	}
	if err := d.s.engine.Write(ctx, func(tx Tx) error { return tx.UpdateDirectoryEntry(ctx, row) }); err != nil {
		return fmt.Errorf("replace %s %s: %w", e.Kind, e.ID, err)
	}
	return nil
}

// Entry implements ports.Directory.
func (d Directory) Entry(ctx context.Context, kind, id string) (ports.DirectoryEntry, error) {
	var row DirectoryRow
	err := d.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		row, err = tx.GetDirectoryEntry(ctx, kind, id)
		return err
	})
	if err != nil {
		return ports.DirectoryEntry{}, fmt.Errorf("read %s %s: %w", kind, id, err)
	}
	e, err := fromDirectoryRow(row)
	if err != nil {
		return ports.DirectoryEntry{}, fmt.Errorf("read %s %s: %w", kind, id, err)
	}
	return e, nil
}

// Entries implements ports.Directory.
func (d Directory) Entries(ctx context.Context, kind string, limit int) ([]ports.DirectoryEntry, error) {
	var rows []DirectoryRow
	err := d.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		rows, err = tx.ListDirectoryEntries(ctx, kind, max(limit, 0))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", kind, err)
	}
	out := make([]ports.DirectoryEntry, 0, len(rows))
	for _, r := range rows {
		e, err := fromDirectoryRow(r)
		if err != nil {
			return nil, fmt.Errorf("list %ss: %w", kind, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// DeleteEntry implements ports.Directory.
func (d Directory) DeleteEntry(ctx context.Context, kind, id string) error {
	if err := d.s.engine.Write(ctx, func(tx Tx) error { return tx.DeleteDirectoryEntry(ctx, kind, id) }); err != nil {
		return fmt.Errorf("delete %s %s: %w", kind, id, err)
	}
	return nil
}

// Block implements ports.Deprovisions.
func (d Directory) Block(ctx context.Context, userID string, at time.Time) error {
	if err := d.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertUserCutoff(ctx, userID, true, at.UTC()) }); err != nil {
		return fmt.Errorf("block %s: %w", userID, err)
	}
	return nil
}

// Unblock implements ports.Deprovisions.
func (d Directory) Unblock(ctx context.Context, userID string) error {
	err := d.s.engine.Write(ctx, func(tx Tx) error {
		_, cut, err := tx.GetUserCutoff(ctx, userID)
		if errors.Is(err, ports.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return tx.UpsertUserCutoff(ctx, userID, false, cut)
	})
	if err != nil {
		return fmt.Errorf("unblock %s: %w", userID, err)
	}
	return nil
}

// Cutoff implements ports.Deprovisions.
func (d Directory) Cutoff(ctx context.Context, userID string) (bool, time.Time, error) {
	var blocked bool
	var cut time.Time
	err := d.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		blocked, cut, err = tx.GetUserCutoff(ctx, userID)
		return err
	})
	if errors.Is(err, ports.ErrNotFound) {
		return false, time.Time{}, nil
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("read cutoff of %s: %w", userID, err)
	}
	return blocked, cut, nil
}
