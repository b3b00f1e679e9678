package routing

import (
	"time"

	"keygate/domain/llm"
)

// Verdict is what one failed attempt means for its key, its target and the
// call. A call moves only before any output reached the client; the caller
// decides that, the verdict says where a move may go.
type Verdict struct {
	// CoolKey rests the key: the provider refused this key (429, 401, 403).
	CoolKey bool
	// Auth marks an authentication failure of the key.
	Auth bool
	// NextKey: the target's next key may serve the call at once.
	NextKey bool
	// CoolTarget rests the target: the deployment failed (5xx, a
	// connection that failed or stalled, no first token in time).
	CoolTarget bool
	// NextTarget: the next target may serve the call once this target's
	// keys are spent (after a key failure) or at once (after a target
	// failure).
	NextTarget bool
	// Rest is how long the key or target rests.
	Rest time.Duration
}

// Judge classifies a provider failure. keyRest is the provider's
// configured rest for a refused key and targetRest the rest of a failed
// deployment; the provider's Retry-After wins over either. Failures of the
// request itself (bad request, context overflow, content filter, refusal,
// a broken stream) move nothing: any other target would fail them alike.
func Judge(err *llm.ProviderError, keyRest, targetRest time.Duration) Verdict {
	rest := func(d time.Duration) time.Duration {
		if err.RetryAfter > 0 {
			return err.RetryAfter
		}
		return d
	}
	switch err.Class {
	case llm.ErrorRateLimit:
		return Verdict{CoolKey: true, NextKey: true, NextTarget: true, Rest: rest(keyRest)}
	case llm.ErrorAuthorization:
		return Verdict{CoolKey: true, Auth: true, NextKey: true, NextTarget: true, Rest: rest(keyRest)}
	case llm.ErrorTransient:
		return Verdict{CoolTarget: true, NextTarget: true, Rest: rest(targetRest)}
	default:
		return Verdict{}
	}
}

// DisableAfter is how many authentication failures in a row, with no
// success between them, take a key out of its pool for good: one 401 may
// be a provider's hiccup, several in a row are a revoked key.
const DisableAfter = 3

// ShouldDisable reports whether a key whose health is h must leave its
// pool.
func ShouldDisable(h Health) bool { return h.AuthFailures >= DisableAfter }
