package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"keygate/domain/llm"
	"keygate/domain/modelcycle"
)

// retryStatus is what a model cycle tells the user while it retries
// (docs/engine.md, "Retries"): a line at once when an attempt failed, one
// when the next attempt starts, and one every Limits.StatusInterval while
// the run waits between them. Only the run's goroutine touches it.
type retryStatus struct {
	r *runner
	// start is when the cycle's first attempt started.
	start time.Time
	// attempt is the attempt running or next; attemptAt when it started.
	attempt   int
	attemptAt time.Time
	// max is the most attempts the cycle makes.
	max int
	// reason is why the last attempt failed, for the user.
	reason string
	// spent is the time waited between attempts so far.
	spent time.Duration
	// open says statuses were shown and not yet closed; shownAt is when
	// the first of them was.
	open    bool
	shownAt time.Time
}

func newRetryStatus(r *runner) *retryStatus {
	now := r.e.clock.Now()
	return &retryStatus{r: r, start: now, attemptAt: now, attempt: 1, max: r.e.limits.MaxRetries + 1}
}

// begin marks the start of attempt n.
func (s *retryStatus) begin(n int) { s.attempt, s.attemptAt = n, s.r.e.clock.Now() }

// show sends a status of kind about attempt.
func (s *retryStatus) show(ctx context.Context, kind StatusKind, attempt int, wait time.Duration) {
	now := s.r.e.clock.Now()
	if !s.open {
		s.open, s.shownAt = true, now
	}
	st := ModelStatus{Kind: kind, Attempt: attempt, MaxAttempts: s.max, Reason: s.reason, Wait: wait, Elapsed: now.Sub(s.start)}
	st.Line = s.line(st, now)
	s.r.emit(ctx, st)
}

// end closes the statuses shown, if any. It is sent even after a cancel,
// so that a transport never keeps a status line open.
func (s *retryStatus) end() {
	if !s.open {
		return
	}
	s.open = false
	s.r.emitFinal(ModelStatusEnd{Duration: s.r.e.clock.Now().Sub(s.shownAt)})
}

// line is the sentence of a status.
func (s *retryStatus) line(st ModelStatus, now time.Time) string {
	of := fmt.Sprintf("%d of up to %d", st.Attempt, st.MaxAttempts)
	switch {
	case st.Kind == StatusRetryScheduled:
		return fmt.Sprintf("Attempt %s failed: %s. Trying again in %s.", of, strings.TrimRight(st.Reason, "."), span(st.Wait))
	case st.Kind == StatusRetrying:
		return fmt.Sprintf("Attempt %s: sending the request again.", of)
	case st.Wait > 0:
		return fmt.Sprintf("Trying again in %s (attempt %s).", span(st.Wait), of)
	default:
		return fmt.Sprintf("Attempt %s: no answer yet after %s.", of, span(now.Sub(s.attemptAt)))
	}
}

// tried is the sentence a failed cycle's message gets about its retries:
// how often and how long Keygate tried, and a wait the provider asked for
// that was longer than Keygate waits. It is empty for a cycle that failed
// at its first attempt for a reason no retry could help.
func (s *retryStatus) tried(attempts int, refusedWait time.Duration) string {
	var b strings.Builder
	if attempts > 1 {
		fmt.Fprintf(&b, " Keygate tried %d times over %s.", attempts, span(s.r.e.clock.Now().Sub(s.start)))
	}
	if refusedWait > 0 {
		fmt.Fprintf(&b, " The provider asked to wait %s before trying again, longer than Keygate waits for a retry (%s in all).",
			span(refusedWait), span(s.r.e.limits.RetryBudget))
	}
	return b.String()
}

// nextWait decides whether attempt n, which failed with err, is retried,
// and after how long; refusedWait is the provider's Retry-After when it
// alone ruled the retry out.
func (r *runner) nextWait(n int, err error, spent time.Duration) (wait time.Duration, retry bool, refusedWait time.Duration) {
	if n > r.e.limits.MaxRetries || !modelcycle.Retryable(err) {
		return 0, false, 0
	}
	var after time.Duration
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		after = pe.RetryAfter
	}
	b := modelcycle.Backoff{Base: r.e.limits.RetryBase, Max: r.e.limits.RetryMaxDelay, Budget: r.e.limits.RetryBudget}
	wait, retry = b.Delay(n, spent, after, r.e.jitter())
	if !retry && after > 0 && spent < b.Budget {
		refusedWait = after
	}
	return wait, retry, refusedWait
}

// retryReason is why an attempt failed, as a clause for the user.
func retryReason(err error, secrets ...string) string {
	switch {
	case errors.Is(err, modelcycle.ErrEOFBeforeDone):
		return "the provider's stream ended before the answer was complete"
	case errors.Is(err, modelcycle.ErrGrammar):
		return "the provider's answer could not be read (" + llm.BriefText(err.Error(), secrets...) + ")"
	}
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		return "the model call failed (" + llm.BriefText(err.Error(), secrets...) + ")"
	}
	b := briefOf(pe, secrets...)
	if pe.Status != 0 {
		status := strconv.Itoa(pe.Status)
		if i := strings.Index(b, status+": "); i >= 0 {
			return "the provider answered " + status + ": " + b[i+len(status)+2:]
		}
		return "the provider answered " + status
	}
	switch pe.Class {
	case llm.ErrorProtocol:
		return "the provider's answer could not be read (" + b + ")"
	case llm.ErrorRateLimit:
		return "the provider is rate limiting this model's key (" + b + ")"
	}
	return "the connection to the provider failed (" + b + ")"
}

// span is a duration as the user reads it: whole seconds (at least one),
// minutes from a minute on.
func span(d time.Duration) string {
	s := int((d + time.Second/2) / time.Second)
	if s < 1 {
		s = 1
	}
	if s < 60 {
		return strconv.Itoa(s) + " s"
	}
	if s%60 == 0 {
		return strconv.Itoa(s/60) + " min"
	}
	return strconv.Itoa(s/60) + " min " + strconv.Itoa(s%60) + " s"
}
