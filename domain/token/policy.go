package token

import (
	"errors"
	"fmt"
	"time"
)

// MaxDaysLimit bounds every lifetime in days, also where the deployment
// sets none: a lifetime is turned into a time.Duration, which holds no more
// than about 106,751 days, and a bound checked before that arithmetic
// cannot overflow into "never".
const MaxDaysLimit = 3650

// ErrTooMany means the owner already has as many live tokens as the policy
// allows (see TooManyError).
var ErrTooMany = errors.New("too many live gateway tokens")

// Policy bounds the tokens a deployment mints and accepts.
type Policy struct {
	// MaxDays is the longest lifetime of a token, in days; a token older
	// than that no longer authenticates, whatever its own expiry says (a
	// token minted before the bound, or without an expiry). 0 allows
	// tokens that never expire.
	MaxDays int
	// MaxLive bounds the tokens one user holds that are neither revoked
	// nor expired; 0 is no bound.
	MaxLive int
}

// LifetimeError means a requested lifetime is outside what Policy allows.
type LifetimeError struct {
	Days, MaxDays int
}

func (e *LifetimeError) Error() string {
	if e.Days < 0 {
		return "a token's lifetime is a number of days, 0 for the longest allowed"
	}
	return fmt.Sprintf("a token lives at most %d days here; ask for %d days or fewer (0 means %d)", e.MaxDays, e.MaxDays, e.MaxDays)
}

// TooManyError means the owner holds Live tokens, the most Policy allows.
type TooManyError struct{ Live, Max int }

func (e *TooManyError) Error() string {
	return fmt.Sprintf("you hold %d live gateway tokens, the most allowed: revoke one you no longer use first", e.Live)
}

func (e *TooManyError) Unwrap() error { return ErrTooMany }

// Lifetime returns the lifetime of a token asked for days days: 0 means
// the longest the policy allows (no expiry when it allows tokens that
// never expire). The bounds are checked on the days, before any duration
// is computed.
func (p Policy) Lifetime(days int) (time.Duration, error) {
	limit := p.MaxDays
	if limit <= 0 || limit > MaxDaysLimit {
		limit = MaxDaysLimit
	}
	switch {
	case days < 0 || days > limit:
		return 0, &LifetimeError{Days: days, MaxDays: limit}
	case days == 0 && p.MaxDays <= 0:
		return 0, nil
	case days == 0:
		days = limit
	}
	return time.Duration(days) * 24 * time.Hour, nil
}

// Usable reports, beside t.Usable, ErrExpired for a token older than the
// policy's longest lifetime.
func (p Policy) Usable(t Token, now time.Time) error {
	if err := t.Usable(now); err != nil {
		return err
	}
	if p.MaxDays > 0 && !now.Before(t.CreatedAt.Add(time.Duration(min(p.MaxDays, MaxDaysLimit))*24*time.Hour)) {
		return ErrExpired
	}
	return nil
}

// Live reports whether t counts against MaxLive at now: neither revoked
// nor expired.
func (p Policy) Live(t Token, now time.Time) bool { return p.Usable(t, now) == nil }
