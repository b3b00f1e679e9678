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
	// RetryDelay is the wait before a retry (default modelcycle.RetryDelay).
	RetryDelay time.Duration
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
	if l.RetryDelay == 0 {
		l.RetryDelay = modelcycle.RetryDelay
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
	Clock  ports.Clock
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
