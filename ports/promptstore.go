package ports

import (
	"context"

	"keygate/domain/llm"
)

// PromptStore keeps the provider-independent request of each call, so that
// the console can say whether a call's prompt extended the previous call's
// (prompt caching) and where it broke.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context.
type PromptStore interface {
	// PutPrompt stores the request of a call; storing a call id again
	// replaces it. A store may drop old prompts to bound its size.
	PutPrompt(ctx context.Context, callID string, req llm.Request) error
	// Prompt returns the request stored for a call, or ErrNotFound.
	Prompt(ctx context.Context, callID string) (llm.Request, error)
}
