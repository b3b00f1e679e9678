package metrics_test

import (
	"context"
	"testing"

	"keygate/adapters/metrics"
	"keygate/domain/llm"
	"keygate/ports"
)

// BenchmarkProviderStream measures the decorator's cost on a 1000-delta
// stream (per op: one whole call).
func BenchmarkProviderStream(b *testing.B) {
	evs := []llm.Event{{Kind: llm.EventStart}}
	for range 1000 {
		evs = append(evs, llm.Event{Kind: llm.EventTextDelta, Text: "x"})
	}
	evs = append(evs, llm.Event{Kind: llm.EventDone})
	p := metrics.New(nil).Provider(scripted{events: evs})
	call := ports.ModelCall{Endpoint: ports.Endpoint{Kind: llm.ProviderAnthropic}, Request: llm.Request{Model: "m"}}
	for b.Loop() {
		s, _ := p.Stream(context.Background(), call)
		for s.Next() {
		}
		_ = s.Close()
	}
}
