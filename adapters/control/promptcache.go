package control

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"keygate/domain/llm"
	"keygate/ports"
)

// PromptCache keeps the requests of the most recent calls in memory, for the
// cache insight of the console. It forgets the oldest beyond its capacity
// and everything on restart; the insight then says the prompt was not kept.
// Requests share their slices with the caller, which never mutates them
// after sending.
type PromptCache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	byID  map[string]*list.Element
}

type promptEntry struct {
	callID string
	req    llm.Request
}

var _ ports.PromptStore = (*PromptCache)(nil)

// NewPromptCache keeps up to capacity prompts (at least 1).
func NewPromptCache(capacity int) *PromptCache {
	return &PromptCache{max: max(capacity, 1), order: list.New(), byID: map[string]*list.Element{}}
}

// PutPrompt implements ports.PromptStore.
func (c *PromptCache) PutPrompt(ctx context.Context, callID string, req llm.Request) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put prompt: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[callID]; ok {
		c.order.Remove(e)
	}
	c.byID[callID] = c.order.PushBack(promptEntry{callID: callID, req: req})
	for c.order.Len() > c.max {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.byID, oldest.Value.(promptEntry).callID)
	}
	return nil
}

// Prompt implements ports.PromptStore.
func (c *PromptCache) Prompt(ctx context.Context, callID string) (llm.Request, error) {
	if err := ctx.Err(); err != nil {
		return llm.Request{}, fmt.Errorf("read prompt: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[callID]
	if !ok {
		return llm.Request{}, fmt.Errorf("prompt of %s: %w", callID, ports.ErrNotFound)
	}
	return e.Value.(promptEntry).req, nil
}
