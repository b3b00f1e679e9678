package control

import (
	"context"

	"keygate/ports"
)

// PromptTap is a ModelProvider that stores each call's request in a
// PromptStore before passing the call on, which is what the cache insight
// compares. Storing is best effort: a failure never fails the model call,
// the insight then says the prompt was not kept.
type PromptTap struct {
	next    ports.ModelProvider
	prompts ports.PromptStore
}

var _ ports.ModelProvider = (*PromptTap)(nil)

// NewPromptTap wraps next.
func NewPromptTap(next ports.ModelProvider, prompts ports.PromptStore) *PromptTap {
	return &PromptTap{next: next, prompts: prompts}
}

// Stream stores call.Request under call.CallID, then streams from next.
func (t *PromptTap) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	_ = t.prompts.PutPrompt(context.WithoutCancel(ctx), call.CallID, call.Request)
	return t.next.Stream(ctx, call)
}
