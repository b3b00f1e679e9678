package relstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"keygate/ports"
)

// membershipRows are the recorded groups of users. Groups travel as a
// JSON array.
type membershipRows interface {
	UpsertUserGroups(ctx context.Context, userID string, groups []byte, at time.Time) error
	GetUserGroups(ctx context.Context, userID string) ([]byte, time.Time, error)
}

// Memberships implements ports.MembershipStore.
type Memberships struct{ s *Store }

var _ ports.MembershipStore = Memberships{}

// Memberships returns the store of users' recorded groups.
func (s *Store) Memberships() Memberships { return Memberships{s} }

// RecordGroups implements ports.MembershipStore.
func (m Memberships) RecordGroups(ctx context.Context, userID string, groups []string, at time.Time) error {
	if groups == nil {
		groups = []string{}
	}
	raw, err := json.Marshal(groups)
	if err != nil {
		return fmt.Errorf("record groups of %s: %w", userID, err)
	}
	if err := m.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertUserGroups(ctx, userID, raw, at.UTC()) }); err != nil {
		return fmt.Errorf("record groups of %s: %w", userID, err)
	}
	return nil
}

// Groups implements ports.MembershipStore.
func (m Memberships) Groups(ctx context.Context, userID string) ([]string, time.Time, error) {
	var raw []byte
	var at time.Time
	err := m.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		raw, at, err = tx.GetUserGroups(ctx, userID)
		return err
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read groups of %s: %w", userID, err)
	}
	var groups []string
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, time.Time{}, fmt.Errorf("read groups of %s: %w", userID, err)
	}
	return groups, at, nil
}
