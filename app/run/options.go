package run

import (
	"time"

	"go.uber.org/zap"

	"keygate/domain/modelcycle"
	"keygate/ports"
)

// Limits bound a run. Zero values take the defaults noted on each field.
type Limits struct {
	// MaxRetries is how many times a failed model attempt is retried
	// (default modelcycle.MaxRetries, 8). Negative means none.
	MaxRetries int
	// RetryBase and RetryMaxDelay shape the wait before a retry: about
	// RetryBase before the first, doubling up to RetryMaxDelay, with jitter
	// (defaults from modelcycle.DefaultBackoff: 1 s and 15 s).
	RetryBase, RetryMaxDelay time.Duration
	// RetryBudget bounds the sum of the retry waits of one model cycle
	// (default 60 s); a provider's Retry-After longer than what remains
	// ends the retries. Negative means no retries.
	RetryBudget time.Duration
	// StatusInterval is how often a run that retries tells the user it
	// still waits (ModelStatus), during a retry wait and while the next
	// attempt has not answered yet (default 5 s).
	StatusInterval time.Duration
	// MaxToolRounds ends a run that asked for more tool rounds than this
	// (default 200), so a model that loops on tools cannot run forever.
	MaxToolRounds int
	// CompactionTimeout bounds an automatic summary call; on expiry the
	// fallback summary is used (default 30 s).
	CompactionTimeout time.Duration
	// EventBuffer is the capacity of a run's event channel (default 64; it
	// is allocated whole for every run). A slower transport makes the
	// engine wait, never lose or deadlock.
	EventBuffer int
}

// DefaultMaxToolRounds is the default of Limits.MaxToolRounds.
const DefaultMaxToolRounds = 200

func (l Limits) withDefaults() Limits {
	if l.MaxRetries == 0 {
		l.MaxRetries = modelcycle.MaxRetries
	}
	if l.MaxRetries < 0 {
		l.MaxRetries = 0
	}
	if l.RetryBase <= 0 {
		l.RetryBase = modelcycle.DefaultBackoff.Base
	}
	if l.RetryMaxDelay <= 0 {
		l.RetryMaxDelay = max(modelcycle.DefaultBackoff.Max, l.RetryBase)
	}
	switch {
	case l.RetryBudget == 0:
		l.RetryBudget = modelcycle.DefaultBackoff.Budget
	case l.RetryBudget < 0:
		l.RetryBudget, l.MaxRetries = 0, 0
	}
	if l.StatusInterval <= 0 {
		l.StatusInterval = 5 * time.Second
	}
	if l.MaxToolRounds <= 0 {
		l.MaxToolRounds = DefaultMaxToolRounds
	}
	if l.CompactionTimeout <= 0 {
		l.CompactionTimeout = 30 * time.Second
	}
	if l.EventBuffer <= 0 {
		l.EventBuffer = 64
	}
	return l
}

// Options build an [Engine].
type Options struct {
	// Conversations, Runs and ToolRounds are required.
	Conversations ports.ConversationStore
	Runs          ports.RunStore
	ToolRounds    ports.ToolRoundStore
	// Blobs hydrates tool-result and user images for the provider view;
	// nil sends images without bytes.
	Blobs ports.BlobStore
	// Anchors keeps the context anchor across runs; nil keeps it in memory
	// for the engine's lifetime.
	Anchors ports.ContextAnchorStore
	// Provider is required. It records one call record per attempt.
	Provider ports.ModelProvider
	// Clock defaults to the system clock.
	Clock ports.Clock
	// Jitter draws the jitter of retry waits, in [0, 1); it defaults to
	// math/rand/v2's Float64. Specs fix it to know the waits.
	Jitter func() float64
	Logger *zap.Logger
	Limits Limits
}

// SystemClock is the real ports.Clock.
type SystemClock struct{}

var _ ports.Clock = SystemClock{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// NewTimer starts a time.Timer.
func (SystemClock) NewTimer(d time.Duration) ports.Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }
