package compaction

import (
	"errors"

	"keygate/domain/llm"
)

// SummaryOutputTokens is the output allowance of an automatic summary call;
// the summary request is trimmed to leave room for it.
const SummaryOutputTokens = 4096

// Sentinel errors of compaction. Match them with errors.Is.
var (
	// ErrIrreducible marks a history over budget with nothing to summarise:
	// the current input alone does not fit. It fails before any provider
	// call.
	ErrIrreducible = errors.New("current input does not fit the context window")
	// ErrStillTooLarge marks a compacted layout that still does not fit.
	ErrStillTooLarge = errors.New("context overflow after compaction")
)

// Budget is the most context tokens a request may use in a window of the
// given size: the window minus a proportional 10 % reserve, which leaves
// room for the answer and for the estimate running behind the provider's
// count. A window of 0 or less means unknown, and Budget returns 0 (no
// limit).
func Budget(window int64) int64 {
	if window <= 0 {
		return 0
	}
	return window - window/10
}

// Anchor is the last authoritative context size of a conversation: the
// provider-reported context input of a call and how many projected messages
// (transient tails excluded) that call sent. It belongs to the
// conversation, not to a model, so it survives a model switch.
type Anchor struct {
	ContextTokens int64
	MessageCount  int
}

// Estimate estimates the context tokens of req. With a usable anchor (one
// that covers no more messages than req has) it adds the estimate of the
// messages after the anchor to the anchor's tokens; otherwise it estimates
// the whole request.
func Estimate(req llm.Request, anchor *Anchor) int64 {
	if anchor == nil || anchor.MessageCount <= 0 || anchor.MessageCount > len(req.Messages) {
		return llm.EstimateRequest(req)
	}
	return anchor.ContextTokens + llm.EstimateMessages(req.Messages[anchor.MessageCount:])
}

// Needed reports whether an estimate is over the budget of window.
func Needed(estimate, window int64) bool {
	b := Budget(window)
	return b > 0 && estimate > b
}
