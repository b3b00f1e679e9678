package run

import (
	"fmt"

	"keygate/domain/llm"
)

// Status is how a run ended.
type Status uint8

// Run end statuses.
const (
	Completed Status = iota + 1
	Cancelled
	Failed
)

// String returns the status name.
func (s Status) String() string {
	switch s {
	case Completed:
		return "completed"
	case Cancelled:
		return "cancelled"
	case Failed:
		return "failed"
	default:
		return "unknown"
	}
}

// Category classifies a failure for the client and the run record.
type Category string

// Failure categories. Limit is Keygate's own: the run hit a configured
// guard such as the maximum number of tool rounds.
const (
	CategoryProtocol Category = "protocol"
	CategoryProvider Category = "provider"
	CategoryStore    Category = "store"
	CategoryClient   Category = "client"
	CategoryLimit    Category = "limit"
)

// Outcome is the end of a run.
type Outcome struct {
	Status Status
	// Failure is set when Status is Failed.
	Failure *Failure
	// Reason says why a cancelled run was cancelled ("preempted" when a
	// newer run took the conversation).
	Reason string
	// Usage sums every model call of the run, failed attempts, summary
	// calls and interrupted cycles included.
	Usage llm.Usage
}

// Failure is why a run failed. It is an error; Err is the cause.
type Failure struct {
	Category Category
	// Message is shown to the user.
	Message string
	// Retryable says that sending the same turn again may succeed (a
	// provider failure after all retries, for example).
	Retryable bool
	Err       error
}

func (f *Failure) Error() string { return fmt.Sprintf("run failed (%s): %s", f.Category, f.Message) }

func (f *Failure) Unwrap() error { return f.Err }

// Cancel reasons the engine itself gives.
const (
	// ReasonPreempted: a newer run claimed the conversation.
	ReasonPreempted = "preempted"
	// ReasonShutdown: the engine was shut down.
	ReasonShutdown = "shutdown"
)

// errCancelled carries a cancel reason through the run's context cause.
type errCancelled struct{ reason string }

func (e *errCancelled) Error() string { return "run cancelled: " + e.reason }

func failure(cat Category, retryable bool, err error) *Failure {
	return &Failure{Category: cat, Message: err.Error(), Retryable: retryable, Err: err}
}
