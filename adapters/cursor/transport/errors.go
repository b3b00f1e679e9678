package transport

import (
	"errors"
	"fmt"
)

var (
	// ErrNoModel means the opening append of a request id is not a run_request
	// naming a model.
	ErrNoModel = errors.New("first BidiAppend message must select a model")
	// ErrRouteTimeout means an append or subscriber waited Config.RouteWait for the
	// opening append of its request id.
	ErrRouteTimeout = errors.New("timed out waiting for the initial BidiAppend model selection")
	// ErrTurnOver means Output.Send after ServeRun returned or the stream ended.
	ErrTurnOver = errors.New("turn is over")
	// ErrIDsExhausted means a per-transport id counter reached its maximum; ids are
	// never reused.
	ErrIDsExhausted = errors.New("transport id space exhausted")
	// ErrRegistryClosed means the registry is shutting down.
	ErrRegistryClosed = errors.New("transport registry closed")
	// ErrDraining means the registry drains before shutting down and starts no
	// new turn; another replica can.
	ErrDraining = errors.New("this replica is draining and starts no new turn")
	// ErrReplayLost ends a stream for a subscriber that attached after its
	// replay was released (Config.MaxReplayBytes, Config.ReplayAfterEnd):
	// it cannot get the stream from its start, so it gets none of it and
	// the client resumes from its checkpoint, as after a restart.
	ErrReplayLost = errors.New("the stream's output is no longer kept for a reconnect; resume from the last checkpoint")
	// ErrEmptyRequestID means an append or subscriber named no request id.
	ErrEmptyRequestID = errors.New("request id is empty")
)

// Cancellation causes, readable with context.Cause in RunHandler.ServeRun.
var (
	// ErrSuperseded: a new run_request arrived on the same request id.
	ErrSuperseded = errors.New("run superseded by a new run request")
	// ErrOrphaned: no RunSSE subscriber for Config.OrphanGrace.
	ErrOrphaned = errors.New("run orphaned: no subscriber")
	// ErrUplinkClosed: the HTTP/2 Run request body ended before the turn did.
	ErrUplinkClosed = errors.New("client closed the run uplink")
	// ErrAbandoned: the replica gave the request id up (Registry.Abandon),
	// another one owning it now.
	ErrAbandoned = errors.New("run handed over to another replica")
)

// TooManyPendingError reports an append buffered beyond Config.MaxPending.
type TooManyPendingError struct {
	RequestID string
	Seqno     int64
	Next      int64
	Limit     int
}

func (e *TooManyPendingError) Error() string {
	return fmt.Sprintf("request %s: append %d is too far ahead of %d (%d buffered)",
		e.RequestID, e.Seqno, e.Next, e.Limit)
}
