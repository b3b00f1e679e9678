package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"keygate/domain/budget"
	"keygate/domain/llm"
	"keygate/ports"
)

// Provider wraps next so that every call is counted and timed.
func (m *Metrics) Provider(next ports.ModelProvider) ports.ModelProvider {
	return provider{m: m, next: next}
}

type provider struct {
	m    *Metrics
	next ports.ModelProvider
}

func (p provider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	labels := []string{string(call.Endpoint.Kind), call.Request.Model}
	start := p.m.now()
	s, err := p.next.Stream(ctx, call)
	if err != nil {
		p.m.finish(labels, start, err)
		return nil, err
	}
	p.m.inFlight.Inc()
	return &stream{ModelStream: s, m: p.m, labels: labels, start: start,
		ttft: p.m.ttft.WithLabelValues(labels...), gaps: p.m.interToken.WithLabelValues(labels...)}, nil
}

// stream observes the events of one call as the caller reads them.
type stream struct {
	ports.ModelStream
	m      *Metrics
	labels []string
	// ttft and gaps are resolved once per call: label lookup per token
	// would cost more than the observation.
	ttft, gaps prometheus.Observer
	start      time.Time
	last       time.Time // last delta; zero before the first
	done       bool
}

func (s *stream) Next() bool {
	ok := s.ModelStream.Next()
	if !ok {
		s.end(s.ModelStream.Err())
		return false
	}
	ev := s.ModelStream.Event()
	switch ev.Kind {
	case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallArgumentsDelta:
		now := s.m.now()
		if s.last.IsZero() {
			if ev.Kind != llm.EventToolCallArgumentsDelta {
				s.ttft.Observe(now.Sub(s.start).Seconds())
			}
		} else {
			s.gaps.Observe(now.Sub(s.last).Seconds())
		}
		s.last = now
	case llm.EventUsage:
		if u := ev.Usage; u != nil {
			s.m.addTokens(s.labels, *u)
		}
	}
	return true
}

func (s *stream) Close() error {
	// A stream closed before its end was abandoned by the caller.
	s.end(context.Canceled)
	return s.ModelStream.Close()
}

func (s *stream) end(err error) {
	if s.done {
		return
	}
	s.done = true
	s.m.inFlight.Dec()
	s.m.finish(s.labels, s.start, err)
}

// finish counts one attempt's outcome.
func (m *Metrics) finish(labels []string, start time.Time, err error) {
	outcome := "completed"
	var (
		pe *llm.ProviderError
		be *budget.ExceededError
	)
	switch {
	case err == nil:
	case errors.As(err, &be):
		outcome = "refused"
		m.callErrors.WithLabelValues(labels[0], labels[1], "budget_"+string(be.Limit)).Inc()
	case errors.As(err, &pe):
		outcome = "error"
		m.callErrors.WithLabelValues(labels[0], labels[1], pe.Class.String()).Inc()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		outcome = "cancelled"
	default:
		outcome = "error"
		m.callErrors.WithLabelValues(labels[0], labels[1], "unknown").Inc()
	}
	m.calls.WithLabelValues(labels[0], labels[1], outcome).Inc()
	m.callDuration.WithLabelValues(labels[0], labels[1], outcome).Observe(m.now().Sub(start).Seconds())
}

func (m *Metrics) addTokens(labels []string, u llm.Usage) {
	for _, t := range []struct {
		name  string
		field llm.UsageFields
		n     int64
	}{
		{"input", llm.UsageInput, u.Input}, {"cache_read", llm.UsageCacheRead, u.CacheRead},
		{"cache_write", llm.UsageCacheWrite, u.CacheWrite}, {"output", llm.UsageOutput, u.Output},
	} {
		if u.Known&t.field != 0 && t.n > 0 {
			m.tokens.WithLabelValues(labels[0], labels[1], t.name).Add(float64(t.n))
		}
	}
}
