package projection

import (
	"errors"
	"fmt"
)

// ErrInvalidHistory marks stored messages that are not a valid provider
// history: a call without a result, a result without a call, or a call
// answered twice. Projection refuses them rather than sending a request the
// provider would reject.
var ErrInvalidHistory = errors.New("invalid history")

// HistoryError says where a history is invalid. It matches ErrInvalidHistory.
type HistoryError struct {
	// MessageID is the stored message where the problem shows.
	MessageID string
	// CallID is the tool call concerned, if any.
	CallID string
	// Reason is a short lower-case description.
	Reason string
}

func (e *HistoryError) Error() string {
	if e.CallID != "" {
		return fmt.Sprintf("invalid history at %q: %s (call %q)", e.MessageID, e.Reason, e.CallID)
	}
	return fmt.Sprintf("invalid history at %q: %s", e.MessageID, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidHistory) hold.
func (e *HistoryError) Is(target error) bool { return target == ErrInvalidHistory }
