package controltest

import (
	"context"
	"fmt"
	"sync"

	"keygate/domain/llm"
	"keygate/ports"
)

// Prompts is an in-memory ports.PromptStore. Requests share their slices
// with the caller, which never mutates them after sending.
type Prompts struct {
	mu   sync.Mutex
	byID map[string]llm.Request
}

var _ ports.PromptStore = (*Prompts)(nil)

// NewPrompts returns an empty prompt store.
func NewPrompts() *Prompts { return &Prompts{byID: map[string]llm.Request{}} }

// PutPrompt implements ports.PromptStore.
func (p *Prompts) PutPrompt(ctx context.Context, callID string, req llm.Request) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put prompt: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byID[callID] = req
	return nil
}

// Prompt implements ports.PromptStore.
func (p *Prompts) Prompt(ctx context.Context, callID string) (llm.Request, error) {
	if err := ctx.Err(); err != nil {
		return llm.Request{}, fmt.Errorf("read prompt: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	req, ok := p.byID[callID]
	if !ok {
		return llm.Request{}, fmt.Errorf("prompt of %s: %w", callID, ports.ErrNotFound)
	}
	return req, nil
}
