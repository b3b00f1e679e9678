package company

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"time"

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

// tokenView is what the audit log keeps of a token (never its hash).
func tokenView(t token.Token) map[string]string {
	return map[string]string{"id": t.ID, "name": t.Name, "owner": t.Owner.UserID, "hint": t.Hint}
}

// Create mints a token for the caller and returns its stored form and its
// text, which is shown once. ttl <= 0 means no expiry.
func (t *Tokens) Create(ctx context.Context, caller access.Principal, name string, ttl time.Duration) (token.Token, string, error) {
	tok, text, err := token.New(t.random, caller.Identity, name, t.clock.Now(), ttl)
	if err != nil {
		return token.Token{}, "", fmt.Errorf("create gateway token: %w", err)
	}
	if err := t.store.CreateToken(ctx, tok); err != nil {
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
// secrets); the stored hash is compared once more in constant time. A use
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
	if subtle.ConstantTimeCompare(tok.Hash[:], h[:]) != 1 || tok.Usable(now) != nil || tok.Owner.Validate() != nil {
		return identity.Identity{}, fmt.Errorf("authenticate: %w", ports.ErrNotAuthorized)
	}
	if tok.NeedsTouch(now) {
		_ = t.store.TouchToken(ctx, tok.ID, now)
	}
	return tok.Owner, nil
}
