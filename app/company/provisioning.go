package company

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

// MaxDirectoryEntries bounds the users, and the groups, one deployment's
// directory holds: lists and group recomputations read a kind whole.
const MaxDirectoryEntries = 50_000

// ErrDirectoryFull means the directory holds MaxDirectoryEntries of a kind.
var ErrDirectoryFull = errors.New("the directory holds as many entries of this kind as it may")

// Provisioner is the principal the audit log names for what an identity
// provider did over SCIM.
var Provisioner = access.Principal{Identity: identity.Identity{UserID: "scim", Name: "SCIM provisioning"}, Role: access.Admin}

// Provisioning is the use case behind SCIM: it keeps the users and groups
// an identity provider provisions and applies what they mean to Keygate.
// A user is matched to the identity they sign in as by their userName.
// Deactivating or deleting a user cuts them: they are blocked (the sign-in
// gate and the gateway-token check refuse them on every replica), every
// credential issued before the cut is refused for good, and their gateway
// tokens are revoked, so each replica's proxy closes their open
// connections at its next recheck. A group change records, for each user
// it touches, the names of the groups they are now in (the membership
// store the role map and teams read).
type Provisioning struct {
	dir     ports.Directory
	cuts    ports.Deprovisions
	tokens  ports.TokenStore
	members ports.MembershipStore
	clock   ports.Clock
	random  io.Reader
	audit   *Auditor
}

// NewProvisioning returns the use case. random is crypto/rand.Reader in
// production; audit may be nil.
func NewProvisioning(dir ports.Directory, cuts ports.Deprovisions, tokens ports.TokenStore, members ports.MembershipStore,
	clock ports.Clock, random io.Reader, audit *Auditor) *Provisioning {
	return &Provisioning{dir: dir, cuts: cuts, tokens: tokens, members: members, clock: clock, random: random, audit: audit}
}

// entryView is what the audit log keeps of an entry.
func entryView(e ports.DirectoryEntry) map[string]any {
	return map[string]any{"kind": e.Kind, "id": e.ID, "name": e.Name, "external_id": e.ExternalID, "active": e.Active, "members": len(e.Members)}
}

// newID returns an entry id that sorts by creation time (its first half is
// the time in nanoseconds), so lists page in creation order even where the
// store keeps times in milliseconds.
func (p *Provisioning) newID(at time.Time) (string, error) {
	b := make([]byte, 8)
	if _, err := io.ReadFull(p.random, b); err != nil {
		return "", err
	}
	return fmt.Sprintf("%016x", at.UnixNano()) + hex.EncodeToString(b), nil
}

// Entry returns the entry (kind, id), or ports.ErrNotFound.
func (p *Provisioning) Entry(ctx context.Context, kind, id string) (ports.DirectoryEntry, error) {
	return p.dir.Entry(ctx, kind, id)
}

// Entries returns every entry of kind, oldest first.
func (p *Provisioning) Entries(ctx context.Context, kind string) ([]ports.DirectoryEntry, error) {
	return p.dir.Entries(ctx, kind, MaxDirectoryEntries)
}

// Create stores e as a new entry with an id of Keygate's, and returns it
// as stored. A user created inactive is cut at once; a group's members
// have their groups recorded.
func (p *Provisioning) Create(ctx context.Context, e ports.DirectoryEntry) (ports.DirectoryEntry, error) {
	list, err := p.dir.Entries(ctx, e.Kind, MaxDirectoryEntries)
	if err != nil {
		return ports.DirectoryEntry{}, err
	}
	if len(list) >= MaxDirectoryEntries {
		return ports.DirectoryEntry{}, fmt.Errorf("create %s: %w", e.Kind, ErrDirectoryFull)
	}
	e.Created = p.clock.Now().UTC()
	if e.ID, err = p.newID(e.Created); err != nil {
		return ports.DirectoryEntry{}, fmt.Errorf("create %s: %w", e.Kind, err)
	}
	e.Updated = e.Created
	if e.Kind == ports.DirectoryGroup {
		e.Active = true
	}
	if err := p.dir.CreateEntry(ctx, e); err != nil {
		return ports.DirectoryEntry{}, err
	}
	if err := p.record(ctx, "scim."+strings.ToLower(e.Kind)+".create", e.ID, nil, entryView(e)); err != nil {
		return e, err
	}
	return e, p.apply(ctx, nil, &e)
}

// Replace stores e over the entry of its kind and id and applies the
// change: a user deactivated or renamed is cut, one activated admitted
// again; a group's old and new members have their groups recorded.
func (p *Provisioning) Replace(ctx context.Context, e ports.DirectoryEntry) (ports.DirectoryEntry, error) {
	old, err := p.dir.Entry(ctx, e.Kind, e.ID)
	if err != nil {
		return ports.DirectoryEntry{}, err
	}
	e.Created, e.Updated = old.Created, p.clock.Now().UTC()
	if e.Kind == ports.DirectoryGroup {
		e.Active = true
	}
	if err := p.dir.ReplaceEntry(ctx, e); err != nil {
		return ports.DirectoryEntry{}, err
	}
	if err := p.record(ctx, "scim."+strings.ToLower(e.Kind)+".update", e.ID, entryView(old), entryView(e)); err != nil {
		return e, err
	}
	return e, p.apply(ctx, &old, &e)
}

// Delete removes the entry (kind, id): a deleted user is cut, a deleted
// group's members have their groups recorded without it.
func (p *Provisioning) Delete(ctx context.Context, kind, id string) error {
	old, err := p.dir.Entry(ctx, kind, id)
	if err != nil {
		return err
	}
	if err := p.dir.DeleteEntry(ctx, kind, id); err != nil {
		return err
	}
	if err := p.record(ctx, "scim."+strings.ToLower(kind)+".delete", id, entryView(old), nil); err != nil {
		return err
	}
	if kind == ports.DirectoryUser {
		if err := p.leaveGroups(ctx, id); err != nil {
			return err
		}
	}
	return p.apply(ctx, &old, nil)
}

// leaveGroups removes the user entry id from every group that lists it.
func (p *Provisioning) leaveGroups(ctx context.Context, id string) error {
	groups, err := p.dir.Entries(ctx, ports.DirectoryGroup, MaxDirectoryEntries)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if !slices.Contains(g.Members, id) {
			continue
		}
		g.Members = slices.DeleteFunc(slices.Clone(g.Members), func(m string) bool { return m == id })
		g.Updated = p.clock.Now().UTC()
		if err := p.dir.ReplaceEntry(ctx, g); err != nil && !errors.Is(err, ports.ErrNotFound) {
			return err
		}
	}
	return nil
}

// apply carries a change from old to new (either nil for a creation or a
// deletion) over to access and groups.
func (p *Provisioning) apply(ctx context.Context, old, new *ports.DirectoryEntry) error {
	kind := ports.DirectoryUser
	if (old != nil && old.Kind == ports.DirectoryGroup) || (new != nil && new.Kind == ports.DirectoryGroup) {
		kind = ports.DirectoryGroup
	}
	if kind == ports.DirectoryGroup {
		var touched []string
		if old != nil {
			touched = append(touched, old.Members...)
		}
		if new != nil {
			touched = append(touched, new.Members...)
		}
		if old != nil && new != nil && old.Name == new.Name {
			touched = symmetricDifference(old.Members, new.Members)
		}
		return p.regroup(ctx, touched)
	}
	var errs []error
	if old != nil && old.Active && (new == nil || !new.Active || new.Name != old.Name) {
		errs = append(errs, p.cut(ctx, old.Name))
	}
	if new != nil && !new.Active && (old == nil || old.Active || old.Name != new.Name) {
		errs = append(errs, p.cut(ctx, new.Name))
	}
	if new != nil && new.Active && (old == nil || !old.Active || old.Name != new.Name) {
		if err := p.cuts.Unblock(ctx, new.Name); err != nil {
			errs = append(errs, err)
		}
	}
	if new != nil && (old == nil || old.Name != new.Name) {
		errs = append(errs, p.regroup(ctx, []string{new.ID}))
	}
	if old != nil && (new == nil || old.Name != new.Name) {
		if err := p.members.RecordGroups(ctx, old.Name, []string{}, p.clock.Now()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// symmetricDifference returns the ids in exactly one of a and b.
func symmetricDifference(a, b []string) []string {
	var out []string
	for _, id := range a {
		if !slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	for _, id := range b {
		if !slices.Contains(a, id) {
			out = append(out, id)
		}
	}
	return out
}

// cut blocks userID, cutting every credential issued until now, and
// revokes their live gateway tokens.
func (p *Provisioning) cut(ctx context.Context, userID string) error {
	now := p.clock.Now()
	if err := p.cuts.Block(ctx, userID, now); err != nil {
		return err
	}
	list, err := p.tokens.Tokens(ctx, userID)
	if err != nil {
		return fmt.Errorf("revoke gateway tokens of %s: %w", userID, err)
	}
	revoked := 0
	for _, t := range list {
		if t.RevokedAt.IsZero() {
			if err := p.tokens.RevokeToken(ctx, t.ID, now); err != nil && !errors.Is(err, ports.ErrNotFound) {
				return fmt.Errorf("revoke gateway tokens of %s: %w", userID, err)
			}
			revoked++
		}
	}
	return p.record(ctx, "scim.user.cut", userID, nil, map[string]any{"user": userID, "tokens_revoked": revoked})
}

// regroup records, for each user entry id among ids, the names of the
// groups they are in now.
func (p *Provisioning) regroup(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	groups, err := p.dir.Entries(ctx, ports.DirectoryGroup, MaxDirectoryEntries)
	if err != nil {
		return err
	}
	now := p.clock.Now()
	var errs []error
	done := map[string]bool{}
	for _, id := range ids {
		if done[id] {
			continue
		}
		done[id] = true
		user, err := p.dir.Entry(ctx, ports.DirectoryUser, id)
		if errors.Is(err, ports.ErrNotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names := []string{}
		for _, g := range groups {
			if slices.Contains(g.Members, id) {
				names = append(names, g.Name)
			}
		}
		slices.Sort(names)
		if err := p.members.RecordGroups(ctx, user.Name, names, now); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (p *Provisioning) record(ctx context.Context, action, target string, before, after any) error {
	if p.audit == nil {
		return nil
	}
	return p.audit.Record(ctx, Provisioner, action, target, before, after)
}
