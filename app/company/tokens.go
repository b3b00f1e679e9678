package company

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

// Tokens is the personal-gateway-token use case: a signed-in user creates,
// lists and revokes their tokens; the Cursor proxy authenticates with them.
type Tokens struct {
	store  ports.TokenStore
	clock  ports.Clock
	random io.Reader
	audit  *Auditor
	policy token.Policy
	// members and roles, when set, decide at each use whether the token's
	// owner is still admitted (see CheckMembershipWith).
	members ports.MembershipStore
	roles   access.RoleMap
	// cuts, when set, refuses the tokens of a user whose access was cut
	// (see CutWith).
	cuts ports.Deprovisions
}

var _ ports.ProxyAuthenticator = (*Tokens)(nil)

// NewTokens returns the use case. random is crypto/rand.Reader in
// production.
func NewTokens(store ports.TokenStore, clock ports.Clock, random io.Reader) *Tokens {
	return &Tokens{store: store, clock: clock, random: random}
}

// AuditWith sends every creation and revocation of a token to the audit
// log: a token is a credential that reaches the organisation's providers,
// so its whole lifecycle is on record, not only administrators' actions.
func (t *Tokens) AuditWith(a *Auditor) { t.audit = a }

// LimitWith bounds the tokens minted and accepted from now on: their
// lifetime (also of tokens minted before, counted from their creation) and
// how many live tokens one user may hold.
func (t *Tokens) LimitWith(p token.Policy) { t.policy = p }

// CheckMembershipWith makes Authenticate refuse a token whose owner's
// groups, as the console last saw them (members), no longer give them a
// role under roles. An owner with no recorded groups (a token minted
// before groups were recorded) is accepted: the token's lifetime bounds
// that.
func (t *Tokens) CheckMembershipWith(members ports.MembershipStore, roles access.RoleMap) {
	t.members, t.roles = members, roles
}

// CutWith makes Authenticate refuse the token of a user who is blocked
// (deprovisioned by their identity provider), and any token created before
// their latest cut, even once they are admitted again.
func (t *Tokens) CutWith(cuts ports.Deprovisions) { t.cuts = cuts }

// tokenView is what the audit log keeps of a token (never its hash).
func tokenView(t token.Token) map[string]string {
	return map[string]string{"id": t.ID, "name": t.Name, "owner": t.Owner.UserID, "hint": t.Hint}
}

// Create mints a token for the caller, living days days (0: the longest
// the policy allows), and returns its stored form and its text, which is
// shown once. A lifetime outside the policy is a *token.LifetimeError; a
// caller who already holds the most live tokens the policy allows gets a
// *token.TooManyError, however many requests race.
func (t *Tokens) Create(ctx context.Context, caller access.Principal, name string, days int) (token.Token, string, error) {
	ttl, err := t.policy.Lifetime(days)
	if err != nil {
		return token.Token{}, "", fmt.Errorf("create gateway token: %w", err)
	}
	now := t.clock.Now()
	tok, text, err := token.New(t.random, caller.Identity, name, now, ttl)
	if err != nil {
		return token.Token{}, "", fmt.Errorf("create gateway token: %w", err)
	}
	var admit func([]token.Token) error
	if limit := t.policy.MaxLive; limit > 0 {
		admit = func(held []token.Token) error {
			live := 0
			for _, h := range held {
				if t.policy.Live(h, now) {
					live++
				}
			}
			if live >= limit {
				return &token.TooManyError{Live: live, Max: limit}
			}
			return nil
		}
	}
	if err := t.store.CreateToken(ctx, tok, admit); err != nil {
		return token.Token{}, "", err
	}
	if t.audit != nil {
		if err := t.audit.Record(ctx, caller, "token.create", tok.ID, nil, tokenView(tok)); err != nil {
			return tok, text, err
		}
	}
	return tok, text, nil
}

// List returns the caller's tokens, or with all set every user's, which
// only an administrator may ask for (access.ErrDenied otherwise).
func (t *Tokens) List(ctx context.Context, caller access.Principal, all bool) ([]token.Token, error) {
	userID := caller.UserID
	if all {
		if err := caller.RequireAdmin(); err != nil {
			return nil, fmt.Errorf("list every user's gateway tokens: %w", err)
		}
		userID = ""
	}
	return t.store.Tokens(ctx, userID)
}

// Revoke revokes token id. A member may revoke only their own tokens;
// another user's token is reported as ports.ErrNotFound so its existence
// does not leak. Revocations are audited when an auditor is set
// (AuditWith).
func (t *Tokens) Revoke(ctx context.Context, caller access.Principal, id string) (token.Token, error) {
	owner := caller.UserID
	if caller.IsAdmin() {
		owner = ""
	}
	list, err := t.store.Tokens(ctx, owner)
	if err != nil {
		return token.Token{}, err
	}
	for _, tok := range list {
		if tok.ID == id {
			if err := t.store.RevokeToken(ctx, id, t.clock.Now()); err != nil {
				return token.Token{}, err
			}
			if t.audit != nil {
				if err := t.audit.Record(ctx, caller, "token.revoke", id, tokenView(tok), nil); err != nil {
					return tok, err
				}
			}
			return tok, nil
		}
	}
	return token.Token{}, fmt.Errorf("revoke gateway token %s: %w", id, ports.ErrNotFound)
}

// Authenticate implements ports.ProxyAuthenticator. The token is found by
// the hash of its text (an index lookup, no per-character comparison of
// secrets); the stored hash is compared once more in constant time. A
// token past its own expiry or the policy's longest lifetime, or whose
// owner's recorded groups no longer admit them, is refused. A use
// is recorded at most once per token.TouchInterval, so a busy client does
// not write on every CONNECT; a failed recording does not refuse the call.
func (t *Tokens) Authenticate(ctx context.Context, text string) (identity.Identity, error) {
	if err := token.Check(text); err != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", ports.ErrNotAuthorized)
	}
	h := token.HashOf(text)
	tok, err := t.store.TokenByHash(ctx, h)
	if errors.Is(err, ports.ErrNotFound) {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", ports.ErrNotAuthorized)
	}
	if err != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", err)
	}
	now := t.clock.Now()
	if subtle.ConstantTimeCompare(tok.Hash[:], h[:]) != 1 || t.policy.Usable(tok, now) != nil || tok.Owner.Validate() != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", ports.ErrNotAuthorized)
	}
	if err := t.admitted(ctx, tok.Owner.UserID); err != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", err)
	}
	if err := t.notCut(ctx, tok); err != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", err)
	}
	if tok.NeedsTouch(now) {
		_ = t.store.TouchToken(ctx, tok.ID, now)
	}
	return tok.Owner, nil
}

// admitted refuses (ErrNotAuthorized) an owner whose recorded groups give
// no role under the current role map.
func (t *Tokens) admitted(ctx context.Context, userID string) error {
	if t.members == nil {
		return nil
	}
	groups, _, err := t.members.Groups(ctx, userID)
	switch {
	case errors.Is(err, ports.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if _, err := t.roles.RoleFor(groups); err != nil {
		return ports.ErrNotAuthorized
	}
	return nil
}

// notCut refuses (ErrNotAuthorized) the token of a blocked owner, or one
// created before its owner's latest cut.
func (t *Tokens) notCut(ctx context.Context, tok token.Token) error {
	if t.cuts == nil {
		return nil
	}
	blocked, cut, err := t.cuts.Cutoff(ctx, tok.Owner.UserID)
	if err != nil {
		return err
	}
	if blocked || (!cut.IsZero() && !tok.CreatedAt.After(cut)) {
		return ports.ErrNotAuthorized
	}
	return nil
}
