package cmdk_test

import (
	"context"
	"sync"

	"keygate/domain/llm"
	"keygate/ports"
)

// endpoints resolves every id to a routed endpoint.
type endpoints struct{}

func (endpoints) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	return ports.Endpoint{Route: id, Kind: "test_chat"}, ports.ModelConfig{ID: id, ModelID: "upstream-" + id}, nil
}

// provider is a scripted ports.ModelProvider: each call streams the next
// answer's deltas; a hanging answer then blocks until the call's context
// ends and closes cancelled.
type provider struct {
	mu        sync.Mutex
	calls     []ports.ModelCall
	answers   [][]string
	hang      bool
	read      int // deltas read by the caller
	cancelled chan struct{}
}

func newProvider(answers ...[]string) *provider {
	return &provider{answers: answers, cancelled: make(chan struct{})}
}

func (p *provider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
	if len(p.answers) == 0 {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Status: 400, Message: "no scripted answer"}
	}
	evs := []llm.Event{{Kind: llm.EventStart}}
	for _, d := range p.answers[0] {
		evs = append(evs, llm.Event{Kind: llm.EventTextDelta, Text: d})
	}
	if !p.hang {
		evs = append(evs, llm.Event{Kind: llm.EventDone, Finish: llm.FinishStop})
	}
	p.answers = p.answers[1:]
	return &stream{ctx: ctx, evs: evs, i: -1, p: p}, nil
}

func (p *provider) Calls() []ports.ModelCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ports.ModelCall(nil), p.calls...)
}

func (p *provider) Read() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.read
}

type stream struct {
	ctx context.Context //nolint:containedctx // the stream lives within its call, as a provider's does
	evs []llm.Event
	i   int
	err error
	p   *provider
}

func (s *stream) Next() bool {
	if s.err = s.ctx.Err(); s.err != nil {
		return false
	}
	if s.i+1 < len(s.evs) {
		s.i++
		if s.evs[s.i].Kind == llm.EventTextDelta {
			s.p.mu.Lock()
			s.p.read++
			s.p.mu.Unlock()
		}
		return true
	}
	if s.p.hang {
		<-s.ctx.Done()
		close(s.p.cancelled)
		s.err = s.ctx.Err()
	}
	return false
}

func (s *stream) Event() llm.Event { return s.evs[s.i] }
func (s *stream) Err() error       { return s.err }
func (s *stream) Close() error     { return nil }
