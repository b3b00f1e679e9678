package ports

import (
	"context"
	"time"

	"keygate/domain/llm"
	"keygate/domain/prefix"
)

// StoredPrompt is what is kept of one call's request for the cache insight:
// the whole request when detailed mode was on for the call, otherwise only
// its shape (digests, roles, sizes: no text of the conversation). Exactly
// one of Request and Shape is set.
type StoredPrompt struct {
	// At is when the call started; retention deletes by it. PutPrompt
	// stores a zero At as the time of storing.
	At      time.Time
	Request *llm.Request
	Shape   *prefix.Shape
}

// PromptStore keeps what the console needs to say whether a call's prompt
// extended the previous call's (prompt caching) and where it broke.
//
// Every method returns ctx.Err() (wrapped) on a cancelled context.
type PromptStore interface {
	// PutPrompt stores what is kept of a call's request; storing a call id
	// again replaces it, whichever kind it held. A prompt with neither or
	// both of Request and Shape set is refused with an error and nothing
	// is stored. A store may drop old prompts to bound its size.
	PutPrompt(ctx context.Context, callID string, p StoredPrompt) error
	// Prompt returns what was stored for a call, At and the one of
	// Request and Shape that was set, or ErrNotFound.
	Prompt(ctx context.Context, callID string) (StoredPrompt, error)
	PromptPurger
}

// PromptPurger deletes stored prompts past the retention age.
type PromptPurger interface {
	// PurgePrompts deletes the prompts, whole requests and shapes alike,
	// of calls that started before cutoff, and returns how many it
	// deleted; running it again with the same cutoff deletes nothing
	// more. Prompts of calls that started at or after cutoff are kept.
	PurgePrompts(ctx context.Context, cutoff time.Time) (int, error)
}
