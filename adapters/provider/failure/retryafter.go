package failure

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter returns the wait a rate-limited response asked for, 0 when it
// named none. It reads, in order: Retry-After (seconds or an HTTP date),
// retry-after-ms, ratelimit-reset (seconds), x-ratelimit-reset and
// x-rate-limit-reset (a Unix time, or seconds when small), and the duration
// headers x-ratelimit-reset-requests / -tokens ("1m30s", "250ms"; the longer
// of the two wins).
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if d, ok := seconds(v); ok {
			return d
		}
		if t, err := http.ParseTime(v); err == nil {
			return positive(t.Sub(now))
		}
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if d, ok := seconds(h.Get("Ratelimit-Reset")); ok {
		return d
	}
	for _, name := range []string{"X-Ratelimit-Reset", "X-Rate-Limit-Reset"} {
		if v := strings.TrimSpace(h.Get(name)); v != "" {
			if d, ok := resetTime(v, now); ok {
				return d
			}
		}
	}
	var longest time.Duration
	for _, name := range []string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"} {
		if d, err := time.ParseDuration(strings.TrimSpace(h.Get(name))); err == nil && d > longest {
			longest = d
		}
	}
	return longest
}

func seconds(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || s < 0 {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// unixFloor separates "seconds from now" from "seconds since 1970": no sane
// reset is more than a year away.
const unixFloor = 365 * 24 * 3600

func resetTime(v string, now time.Time) (time.Duration, bool) {
	s, err := strconv.ParseFloat(v, 64)
	if err != nil {
		if d, derr := time.ParseDuration(v); derr == nil {
			return d, true
		}
		return 0, false
	}
	if s < unixFloor {
		return time.Duration(s * float64(time.Second)), true
	}
	at := time.Unix(0, int64(s*float64(time.Second)))
	return positive(at.Sub(now)), true
}

func positive(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}
