package tab_test

import (
	"context"
	"sync"
	"sync/atomic"

	"keygate/domain/llm"
	"keygate/ports"
)

// The kinds of the fake protocols: one fill-in, one chat.
const (
	kindFill llm.ProviderKind = "test_fill"
	kindChat llm.ProviderKind = "test_chat"
)

type protocols struct{}

func (protocols) Protocols() []ports.ProviderProtocol {
	return []ports.ProviderProtocol{{Kind: kindChat, Name: "Chat"}, {Kind: kindFill, Name: "Fill", FillIn: true}}
}

func (protocols) RequestURL(llm.ProviderKind, string, string, bool) (string, error) { return "", nil }

// endpoints resolves every id to a routed endpoint of kind.
type endpoints struct {
	kind llm.ProviderKind
	// resolved counts the resolutions.
	resolved atomic.Int32
}

func (e *endpoints) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	e.resolved.Add(1)
	if id == "missing" {
		return ports.Endpoint{}, ports.ModelConfig{}, ports.ErrNotFound
	}
	return ports.Endpoint{Route: id, Kind: e.kind}, ports.ModelConfig{ID: id, ModelID: "upstream-" + id, ProviderKind: e.kind}, nil
}

// provider is a scripted ports.ModelProvider: each call takes the next
// answer; an answer that hangs blocks after its events until the call's
// context ends, and says so on cancelled.
type provider struct {
	mu        sync.Mutex
	calls     []ports.ModelCall
	answers   []answer
	cancelled chan struct{}
}

type answer struct {
	events []llm.Event
	hang   bool
}

// text is an answer streaming deltas, finished by finish.
func text(finish llm.FinishReason, deltas ...string) answer {
	evs := []llm.Event{{Kind: llm.EventStart}, {Kind: llm.EventTextStart}}
	for _, d := range deltas {
		evs = append(evs, llm.Event{Kind: llm.EventTextDelta, Text: d})
	}
	return answer{events: append(evs, llm.Event{Kind: llm.EventTextEnd}, llm.Event{Kind: llm.EventDone, Finish: finish})}
}

func newProvider(answers ...answer) *provider {
	return &provider{answers: answers, cancelled: make(chan struct{})}
}

func (p *provider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
	if len(p.answers) == 0 {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Status: 400, Message: "no scripted answer"}
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return &stream{ctx: ctx, a: a, i: -1, p: p}, nil
}

func (p *provider) Calls() []ports.ModelCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ports.ModelCall(nil), p.calls...)
}

type stream struct {
	ctx context.Context //nolint:containedctx // the stream lives within its call, as a provider's does
	a   answer
	i   int
	err error
	p   *provider
}

func (s *stream) Next() bool {
	if s.err = s.ctx.Err(); s.err != nil {
		return false
	}
	if s.i+1 < len(s.a.events) {
		s.i++
		return true
	}
	if s.a.hang {
		<-s.ctx.Done()
		close(s.p.cancelled)
		s.err = s.ctx.Err()
	}
	return false
}

func (s *stream) Event() llm.Event { return s.a.events[s.i] }
func (s *stream) Err() error       { return s.err }
func (s *stream) Close() error     { return nil }

// fates keeps the fates recorded.
type fates struct {
	mu  sync.Mutex
	got []ports.SuggestionFate
}

func (f *fates) RecordFate(_ context.Context, sf ports.SuggestionFate) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, sf)
	return nil
}
