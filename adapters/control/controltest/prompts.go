package controltest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"keygate/ports"
)

// Prompts is an in-memory ports.PromptStore. Prompts share their requests
// and shapes with the caller, which never mutates them after storing.
type Prompts struct {
	mu   sync.Mutex
	byID map[string]ports.StoredPrompt
}

var _ ports.PromptStore = (*Prompts)(nil)

// NewPrompts returns an empty prompt store.
func NewPrompts() *Prompts { return &Prompts{byID: map[string]ports.StoredPrompt{}} }

// PutPrompt implements ports.PromptStore.
func (p *Prompts) PutPrompt(ctx context.Context, callID string, sp ports.StoredPrompt) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put prompt: %w", err)
	}
	if (sp.Request == nil) == (sp.Shape == nil) {
		return errors.New("put prompt: a stored prompt holds exactly one of a request and a shape")
	}
	if sp.At.IsZero() {
		sp.At = time.Now()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byID[callID] = sp
	return nil
}

// Prompt implements ports.PromptStore.
func (p *Prompts) Prompt(ctx context.Context, callID string) (ports.StoredPrompt, error) {
	if err := ctx.Err(); err != nil {
		return ports.StoredPrompt{}, fmt.Errorf("read prompt: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sp, ok := p.byID[callID]
	if !ok {
		return ports.StoredPrompt{}, fmt.Errorf("prompt of %s: %w", callID, ports.ErrNotFound)
	}
	return sp, nil
}

// PurgePrompts implements ports.PromptPurger.
func (p *Prompts) PurgePrompts(ctx context.Context, cutoff time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("purge prompts: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, sp := range p.byID {
		if sp.At.Before(cutoff) {
			delete(p.byID, id)
			n++
		}
	}
	return n, nil
}
