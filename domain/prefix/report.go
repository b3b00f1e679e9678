package prefix

import (
	"errors"
	"fmt"
)

// ErrPrefixMismatch marks a request that does not extend the previous one.
var ErrPrefixMismatch = errors.New("request does not extend the previous request")

// Cause says why a request diverged.
type Cause uint8

// Causes of divergence.
const (
	// CauseChanged: a value at the same position differs.
	CauseChanged Cause = iota + 1
	// CauseRemoved: the previous request had a message or tool the next one
	// lacks at that position.
	CauseRemoved
	// CauseMoved: the request went to another deployment than the previous
	// one (the gateway's router moved the conversation), whose prompt cache
	// holds nothing of it, whatever the prompt.
	CauseMoved
)

// String returns the cause name.
func (c Cause) String() string {
	switch c {
	case CauseChanged:
		return "changed"
	case CauseRemoved:
		return "removed"
	case CauseMoved:
		return "moved"
	default:
		return "unknown"
	}
}

// Report is the result of comparing two requests.
type Report struct {
	// Stable is true when the next request extends the previous one.
	Stable bool
	// Common is the number of leading messages both requests share.
	Common int
	// IgnoredTail is true when the previous request ended with a transient
	// tail (continue or compaction instruction), which is never part of
	// history and so is not expected in the next request.
	IgnoredTail bool
	// Divergence locates the first difference; nil when Stable.
	Divergence *Divergence
}

// Divergence locates the first difference between two requests.
type Divergence struct {
	// Index is the message index, or -1 when the difference is outside the
	// messages (model, instructions, tools, cache key).
	Index int
	// MessageID is the previous request's message at Index, if any.
	MessageID string
	// Field is a path such as "instructions", "tools[1].parameters" or
	// "messages[3].assistant.calls[0].arguments".
	Field string
	Cause Cause
}

// DivergenceError carries a divergence as an error. It matches
// ErrPrefixMismatch.
type DivergenceError struct {
	Divergence
}

func (e *DivergenceError) Error() string {
	if e.MessageID != "" {
		return fmt.Sprintf("request prefix broken at %s (message %q): %s", e.Field, e.MessageID, e.Cause)
	}
	return fmt.Sprintf("request prefix broken at %s: %s", e.Field, e.Cause)
}

// Is makes errors.Is(err, ErrPrefixMismatch) hold.
func (e *DivergenceError) Is(target error) bool { return target == ErrPrefixMismatch }

// Err returns nil for a stable report and a *DivergenceError otherwise.
func (r Report) Err() error {
	if r.Stable {
		return nil
	}
	return &DivergenceError{Divergence: *r.Divergence}
}
