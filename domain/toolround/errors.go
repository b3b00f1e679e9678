package toolround

import (
	"errors"
	"fmt"
)

// Sentinel errors of tool rounds. Match them with errors.Is.
var (
	// ErrInvalidRound marks a round that cannot exist: no calls, a call
	// without an id or name, or calls sharing an index or id.
	ErrInvalidRound = errors.New("invalid tool round")
	// ErrUnknownCall marks a result for a call the round does not hold. The
	// engine treats it as a protocol failure of the client.
	ErrUnknownCall = errors.New("unknown tool call")
)

// UnknownCallError names the call id a result referred to. It matches
// ErrUnknownCall.
type UnknownCallError struct {
	RoundID string
	CallID  string
}

func (e *UnknownCallError) Error() string {
	return fmt.Sprintf("tool round %q has no call %q", e.RoundID, e.CallID)
}

// Is makes errors.Is(err, ErrUnknownCall) hold.
func (e *UnknownCallError) Is(target error) bool { return target == ErrUnknownCall }
