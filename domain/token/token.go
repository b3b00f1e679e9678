package token

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"keygate/domain/identity"
)

// Prefix starts every token, so secret scanners and people recognise one.
const Prefix = "kg_"

// secretBytes of randomness make a token; idBytes make its public id.
const (
	secretBytes = 32
	idBytes     = 8
)

// TouchInterval is how stale LastUsedAt may get before a use records
// itself again: a busy client must not write on every CONNECT.
const TouchInterval = time.Minute

var (
	// ErrMalformed means a string is not shaped like a token (wrong prefix or
	// length). Callers answer it like an unknown token.
	ErrMalformed = errors.New("malformed gateway token")
	// ErrRevoked means the token was revoked.
	ErrRevoked = errors.New("gateway token revoked")
	// ErrExpired means the token is past its expiry time.
	ErrExpired = errors.New("gateway token expired")
	// ErrNoName means a token needs a name so its owner can tell it apart.
	ErrNoName = errors.New("gateway token needs a name")
)

var encoding = base64.RawURLEncoding

// Hash is the SHA-256 of a token's full text: what the store keeps.
type Hash [sha256.Size]byte

// Token is a stored personal gateway token: everything except the secret.
type Token struct {
	// ID is public and names the token in lists and revocations.
	ID string
	// Owner is the user the token authenticates as.
	Owner identity.Identity
	// Name is the owner's label, such as "work laptop".
	Name string
	Hash Hash
	// Hint is the prefix and first characters of the secret, for display.
	Hint      string
	CreatedAt time.Time
	// ExpiresAt, LastUsedAt and RevokedAt are zero when not set.
	ExpiresAt  time.Time
	LastUsedAt time.Time
	RevokedAt  time.Time
}

// New mints a token for owner from random (crypto/rand in production). It
// returns the stored form and the full text, which is shown once and never
// kept. ttl <= 0 means the token does not expire.
func New(random io.Reader, owner identity.Identity, name string, now time.Time, ttl time.Duration) (Token, string, error) {
	if err := owner.Validate(); err != nil {
		return Token{}, "", err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return Token{}, "", ErrNoName
	}
	buf := make([]byte, secretBytes+idBytes)
	if _, err := io.ReadFull(random, buf); err != nil {
		return Token{}, "", fmt.Errorf("mint gateway token: %w", err)
	}
	text := Prefix + encoding.EncodeToString(buf[:secretBytes])
	t := Token{
		ID:        "tok_" + hex.EncodeToString(buf[secretBytes:]),
		Owner:     owner,
		Name:      name,
		Hash:      HashOf(text),
		Hint:      text[:len(Prefix)+4] + "…",
		CreatedAt: now,
	}
	if ttl > 0 {
		t.ExpiresAt = now.Add(ttl)
	}
	return t, text, nil
}

// HashOf returns the hash under which a token's text is stored.
func HashOf(text string) Hash { return sha256.Sum256([]byte(text)) }

// Check reports ErrMalformed unless text is shaped like a token, so that
// garbage never reaches the store.
func Check(text string) error {
	rest, ok := strings.CutPrefix(text, Prefix)
	if !ok || len(rest) != encoding.EncodedLen(secretBytes) {
		return ErrMalformed
	}
	if _, err := encoding.DecodeString(rest); err != nil {
		return ErrMalformed
	}
	return nil
}

// Usable reports ErrRevoked or ErrExpired when the token no longer
// authenticates at now.
func (t Token) Usable(now time.Time) error {
	if !t.RevokedAt.IsZero() {
		return ErrRevoked
	}
	if !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) {
		return ErrExpired
	}
	return nil
}

// NeedsTouch reports whether a use at now should update LastUsedAt.
func (t Token) NeedsTouch(now time.Time) bool {
	return now.Sub(t.LastUsedAt) >= TouchInterval
}
