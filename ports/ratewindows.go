package ports

import (
	"context"
	"time"
)

// RateWindows counts requests and tokens per scope (a user, a route
// target) and minute, shared by every replica, for per-minute limits.
// Windows are named by their start (routing.MinuteOf).
//
// Both methods return ctx.Err() (wrapped) on a cancelled context; a
// cancelled call has counted nothing.
type RateWindows interface {
	// Admit counts one request in scope's window when the window holds
	// fewer than maxRequests requests and fewer than maxTokens tokens (0:
	// no limit), atomically across replicas, so that a limit is never
	// exceeded by concurrent admissions. It returns whether it counted the
	// request and the window's counts before it. A scope's older windows
	// may be dropped.
	Admit(ctx context.Context, scope string, window time.Time, maxRequests, maxTokens int64) (ok bool, requests, tokens int64, err error)

	// AddTokens adds tokens to scope's window.
	AddTokens(ctx context.Context, scope string, window time.Time, tokens int64) error
}
