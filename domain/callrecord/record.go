package callrecord

import (
	"errors"
	"time"

	"keygate/domain/llm"
)

// ErrNotRunning is returned when a record that already finished is finished
// again: a record moves from running to exactly one final status.
var ErrNotRunning = errors.New("call record is not running")

// Status is the lifecycle state of a record.
type Status uint8

// Record statuses. Running is the only non-final one.
const (
	StatusRunning Status = iota + 1
	StatusCompleted
	StatusError
	StatusCancelled
)

// String returns the lower-case status name used by stores and the console.
func (s Status) String() string {
	switch s {
	case StatusRunning:
		return "running"
	case StatusCompleted:
		return "completed"
	case StatusError:
		return "error"
	case StatusCancelled:
		return "cancelled"
	default:
		return "unknown"
	}
}

// Final reports whether s is a terminal status.
func (s Status) Final() bool { return s == StatusCompleted || s == StatusError || s == StatusCancelled }

// Kind names the feature a provider call served. Stores keep it as
// written; the console filters and the dashboard groups by it.
type Kind string

// The kinds of call Keygate makes.
const (
	// KindAgent is a model cycle of a Cursor Agent turn.
	KindAgent Kind = "agent"
	// KindTab is a Cursor Tab (next-edit) prediction.
	KindTab Kind = "tab"
	// KindCmdK is an inline edit (Cmd-K) in the editor or the terminal.
	KindCmdK Kind = "cmdk"
	// KindCommit is a commit message or a branch name.
	KindCommit Kind = "commit"
	// KindTest is a connection test from the console or the doctor.
	KindTest Kind = "test"
	// KindAPI is a call of the compatible API (/v1/messages,
	// /v1/chat/completions, /v1/responses) made by a coding agent or script.
	KindAPI Kind = "api"
)

// Effective is k, or KindAgent when k is empty: a call that names no kind
// is an Agent call, as every call was before kinds existed.
func (k Kind) Effective() Kind {
	if k == "" {
		return KindAgent
	}
	return k
}

// Record is one provider attempt. Retries and alias attempts each get their
// own record with their own CallID.
type Record struct {
	// Identity.
	CallID            string
	RunID             string
	ConversationID    string
	ProviderCallIndex int
	// Kind is the feature the call served (KindAgent, KindTab, …); empty
	// reads as KindAgent, which every call before kinds existed was.
	Kind Kind
	// Client names the program that asked for a call of the compatible
	// API (claude-code, codex, opencode, else its user agent's product
	// token); empty for Keygate's own features.
	Client string
	// UserID is the user whose turn made the call (the identity the run
	// ran under); empty for a call outside any user's turn. It scopes who
	// may read the record.
	UserID string

	// Model is what was asked of which endpoint.
	Model ModelSnapshot
	// Route says how a routed call reached its endpoint; zero for a call
	// made directly (a connection test).
	Route Route

	// Outcome.
	Status Status
	Finish llm.FinishReason
	// HTTPStatus is 0 until response headers arrived.
	HTTPStatus int
	// ErrorClass is zero unless Status is StatusError.
	ErrorClass   llm.ErrorClass
	ErrorMessage string

	Timing Timing

	// Volume.
	RequestBytes  int64
	ResponseBytes int64
	EventCount    int64

	// Usage is the provider's authoritative usage; nil when it reported none.
	Usage *llm.Usage

	// Detailed is the detailed-logging setting snapshotted at call start: when
	// set, the request and the raw response chunks are recorded too.
	Detailed bool
}

// ModelSnapshot is the model configuration as it was when the call started,
// so that later edits of the configuration do not rewrite history.
type ModelSnapshot struct {
	ProviderKind llm.ProviderKind
	// RequestURL is the URL called, with credentials removed.
	RequestURL      string
	ModelID         string
	ReasoningEffort string
	ServiceTier     string
	MessageCount    int
	ToolCount       int
	// ResponseModel and ResponseID are what the provider reported back (for
	// example a dated model snapshot); empty until the stream said so.
	ResponseModel string
	ResponseID    string
}

// Route is how the gateway's router chose an attempt's endpoint.
type Route struct {
	// ID is the model or alias the client asked for.
	ID string
	// Target is the model configuration (a model on its provider) that
	// the attempt went to; Provider its provider and Key the id of the key
	// it used (never the key).
	Target   string
	Provider string
	Key      string
	// Attempt counts the router's attempts for one engine call: 0 for the
	// first, 1 for the first failover to another key or target, and so on.
	Attempt int
	// Moved says why the attempt went to another target than the one that
	// served the conversation's previous call on this route (a failover, a
	// drained or resting target), which is why the provider's prompt cache
	// starts cold there; empty when it stayed, or on a conversation's first
	// call.
	Moved string
}

// Timing holds the milestones of an attempt. A zero time means the milestone
// was not reached.
type Timing struct {
	RequestStarted  time.Time
	ResponseHeaders time.Time
	FirstEvent      time.Time
	FirstText       time.Time
	Finished        time.Time
}

// TTFB is the time to response headers, 0 if they never arrived.
func (t Timing) TTFB() time.Duration { return since(t.RequestStarted, t.ResponseHeaders) }

// TTFT is the time to the first non-whitespace text, 0 if none came.
func (t Timing) TTFT() time.Duration { return since(t.RequestStarted, t.FirstText) }

// Duration is the time from request start to finish, 0 while running.
func (t Timing) Duration() time.Duration { return since(t.RequestStarted, t.Finished) }

func since(from, to time.Time) time.Duration {
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return to.Sub(from)
}

// Complete returns r finished successfully at now with the given finish.
// It fails with ErrNotRunning if r already has a final status.
func (r Record) Complete(now time.Time, finish llm.FinishReason) (Record, error) {
	if r.Status != StatusRunning {
		return r, ErrNotRunning
	}
	r.Status = StatusCompleted
	r.Finish = finish
	r.Timing.Finished = now
	return r, nil
}

// Filtered returns r finished at now as blocked by the provider's content
// filter: an error of class llm.ErrorContentFilter with the finish
// llm.FinishContentFilter, its message naming the filter's categories
// (hits; none when the provider named none). A filtered answer is no
// answer, so the record does not say completed.
func (r Record) Filtered(now time.Time, hits []llm.FilterHit) (Record, error) {
	msg := "blocked by the provider's content filter"
	if len(hits) > 0 {
		msg += ": " + llm.DescribeFilter(hits)
	}
	r, err := r.Fail(now, llm.ErrorContentFilter, msg)
	if err == nil {
		r.Finish = llm.FinishContentFilter
	}
	return r, err
}

// Fail returns r finished with an error of class at now.
func (r Record) Fail(now time.Time, class llm.ErrorClass, message string) (Record, error) {
	if r.Status != StatusRunning {
		return r, ErrNotRunning
	}
	r.Status = StatusError
	r.ErrorClass = class
	r.ErrorMessage = message
	r.Timing.Finished = now
	return r, nil
}

// Cancel returns r finished as cancelled at now (the caller went away).
func (r Record) Cancel(now time.Time) (Record, error) {
	if r.Status != StatusRunning {
		return r, ErrNotRunning
	}
	r.Status = StatusCancelled
	r.Timing.Finished = now
	return r, nil
}
