package runtest

import (
	"context"
	"sync"

	"keygate/ports"
)

var _ ports.ModelProvider = (*Provider)(nil)

// Provider wraps a ports.ModelProvider and keeps every call made through
// it, so specs assert on the provider-independent requests the engine
// built while the wrapped provider exercises the wire.
type Provider struct {
	Next  ports.ModelProvider
	mu    sync.Mutex
	calls []ports.ModelCall
}

// Stream records call and delegates.
func (p *Provider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	p.mu.Lock()
	p.calls = append(p.calls, call)
	p.mu.Unlock()
	return p.Next.Stream(ctx, call)
}

// Calls returns the calls made so far, in order.
func (p *Provider) Calls() []ports.ModelCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ports.ModelCall(nil), p.calls...)
}
