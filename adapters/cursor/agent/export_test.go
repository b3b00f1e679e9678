package agent

import (
	"context"
	"time"
)

// What the specs need of the package's insides: the error mapping and the
// failure classes it reads.
var (
	ConnectError      = connectError
	Classify          = classify
	ErrInvalidRequest = errInvalidRequest
	ErrClientBlob     = errClientBlob
	ErrUnavailable    = errUnavailable
	ErrRunCancelled   = errRunCancelled
	ErrStreamLost     = errStreamLost
)

// NewArgStream follows streamed tool-call arguments for the content of
// keys; Feed yields what each piece decodes to.
func NewArgStream(keys ...string) *argStream { return newArgStream(keys) }

// Feed is argStream.feed.
func (s *argStream) Feed(text string) string { return s.feed(text) }

// WebSlots are the web requests in flight per user.
type WebSlots = webSlots

// NewWebSlots is newWebSlots.
func NewWebSlots(per int, wait time.Duration) *WebSlots { return newWebSlots(per, wait) }

// Acquire is webSlots.acquire.
func (s *webSlots) Acquire(ctx context.Context, user string) (func(), error) {
	return s.acquire(ctx, user)
}

// Users is how many users have requests running or waiting.
func (s *webSlots) Users() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.users)
}
