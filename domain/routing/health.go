package routing

import "time"

// Health is what every replica knows of a key or a target: whether it is
// resting after failures, and what went wrong last.
type Health struct {
	// CoolUntil: the subject is not used before this instant while anything
	// else can serve (zero: not cooling).
	CoolUntil time.Time
	// LastError and LastErrorAt describe the latest failure, kept after a
	// success so that people see what happened.
	LastError   string
	LastErrorAt time.Time
	// Failures counts failures since the last success.
	Failures int
	// AuthFailures counts authentication failures since the last success.
	AuthFailures int
}

// Cooling reports whether the subject rests at now.
func (h Health) Cooling(now time.Time) bool { return now.Before(h.CoolUntil) }

// Failure is one failed attempt as recorded against a key or a target.
type Failure struct {
	At      time.Time
	Message string
	// Auth marks an authentication failure (401, 403, an invalid key).
	Auth bool
	// CoolUntil is when the subject may serve again; zero for no rest.
	CoolUntil time.Time
}

// Record returns h after f: one more failure (and authentication failure
// when f is one), the later of the two rests, f as the last error.
func (h Health) Record(f Failure) Health {
	h.Failures++
	if f.Auth {
		h.AuthFailures++
	}
	if f.CoolUntil.After(h.CoolUntil) {
		h.CoolUntil = f.CoolUntil
	}
	h.LastError, h.LastErrorAt = f.Message, f.At
	return h
}

// Recovered returns h after a success: no failures counted, no rest; the
// last error stays for people.
func (h Health) Recovered() Health {
	h.Failures, h.AuthFailures, h.CoolUntil = 0, 0, time.Time{}
	return h
}

// Clean reports whether a success would change nothing of h, so that a
// healthy subject costs no store write per call.
func (h Health) Clean() bool { return h.Failures == 0 && h.AuthFailures == 0 && h.CoolUntil.IsZero() }

// Subjects name keys and targets in the shared health store.
const (
	keyPrefix    = "key:"
	targetPrefix = "target:"
)

// KeySubject is the health subject of a provider key.
func KeySubject(keyID string) string { return keyPrefix + keyID }

// TargetSubject is the health subject of a target (a model configuration).
func TargetSubject(modelID string) string { return targetPrefix + modelID }

// TargetScope names a target's per-minute counters.
func TargetScope(modelID string) string { return targetPrefix + modelID }
