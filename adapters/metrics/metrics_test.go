package metrics_test

import (
	"context"
	"io"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/metrics"
	"keygate/domain/budget"
	"keygate/domain/llm"
	"keygate/ports"
)

// scripted is a provider whose stream yields events, then err.
type scripted struct {
	events []llm.Event
	err    error // returned by Stream when set and events is nil
	end    error // the stream's Err
}

func (s scripted) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	if s.events == nil && s.err != nil {
		return nil, s.err
	}
	return &fakeStream{events: s.events, err: s.end}, nil
}

type fakeStream struct {
	events []llm.Event
	i      int
	err    error
}

func (f *fakeStream) Next() bool       { f.i++; return f.i <= len(f.events) }
func (f *fakeStream) Event() llm.Event { return f.events[f.i-1] }
func (f *fakeStream) Err() error {
	if f.i > len(f.events) {
		return f.err
	}
	return nil
}
func (f *fakeStream) Close() error { return nil }

// fakeRuns is a run store that accepts everything.
type fakeRuns struct{ ports.RunStore }

func (fakeRuns) Claim(context.Context, ports.RunClaim) (string, error) { return "", nil }
func (fakeRuns) Finish(context.Context, string, ports.RunEnd) error    { return nil }

var _ = Describe("Metrics", func() {
	var (
		m     *metrics.Metrics
		clock time.Time
		call  = ports.ModelCall{Endpoint: ports.Endpoint{Kind: llm.ProviderAnthropic}, Request: llm.Request{Model: "claude-x"}}
	)
	BeforeEach(func() {
		clock = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
		m = metrics.New(func() time.Time { return clock })
	})
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	// drain reads a stream to its end, advancing the clock 100ms per event.
	drain := func(p ports.ModelProvider) {
		s, err := p.Stream(context.Background(), call)
		if err != nil {
			return
		}
		defer s.Close()
		for {
			clock = clock.Add(100 * time.Millisecond)
			if !s.Next() {
				return
			}
		}
	}

	It("counts a completed call, its tokens, its time to first token and its inter-token gaps", func() {
		drain(m.Provider(scripted{events: []llm.Event{
			{Kind: llm.EventStart}, {Kind: llm.EventTextStart},
			{Kind: llm.EventTextDelta, Text: "a"}, {Kind: llm.EventTextDelta, Text: "b"}, {Kind: llm.EventTextDelta, Text: "c"},
			{Kind: llm.EventTextEnd},
			{Kind: llm.EventUsage, Usage: &llm.Usage{Input: 120, Output: 30, CacheRead: 5, Known: llm.UsageInput | llm.UsageOutput | llm.UsageCacheRead}},
			{Kind: llm.EventDone, Finish: llm.FinishStop},
		}}))
		out := scrape()
		Expect(out).To(ContainSubstring(`keygate_provider_calls_total{model="claude-x",outcome="completed",provider="anthropic"} 1`))
		Expect(out).To(ContainSubstring(`keygate_tokens_total{model="claude-x",provider="anthropic",type="input"} 120`))
		Expect(out).To(ContainSubstring(`keygate_tokens_total{model="claude-x",provider="anthropic",type="output"} 30`))
		Expect(out).To(ContainSubstring(`keygate_tokens_total{model="claude-x",provider="anthropic",type="cache_read"} 5`))
		Expect(out).To(ContainSubstring(`keygate_time_to_first_token_seconds_sum{model="claude-x",provider="anthropic"} 0.3`))
		Expect(out).To(ContainSubstring(`keygate_inter_token_seconds_count{model="claude-x",provider="anthropic"} 2`))
		Expect(out).To(ContainSubstring(`keygate_inter_token_seconds_sum{model="claude-x",provider="anthropic"} 0.2`))
		Expect(out).To(ContainSubstring(`keygate_provider_calls_in_flight 0`))
	})

	DescribeTable("counts a failed call by its error class",
		func(p scripted, class string) {
			drain(m.Provider(p))
			out := scrape()
			Expect(out).To(ContainSubstring(`keygate_provider_errors_total{class="` + class + `",model="claude-x",provider="anthropic"} 1`))
			Expect(out).To(ContainSubstring(`keygate_provider_calls_total{model="claude-x",outcome="error",provider="anthropic"} 1`))
			Expect(out).To(ContainSubstring(`keygate_provider_calls_in_flight 0`))
		},
		Entry("a refused request is counted before any stream exists", scripted{err: &llm.ProviderError{Class: llm.ErrorRateLimit, Status: 429}}, "rate_limit"),
		Entry("a stream that breaks is counted when it ends", scripted{events: []llm.Event{{Kind: llm.EventStart}}, end: &llm.ProviderError{Class: llm.ErrorProtocol}}, "protocol"),
	)

	It("counts a call a budget refused as refused, by limit", func() {
		drain(m.Provider(scripted{err: &budget.ExceededError{Limit: budget.LimitTokensPerDay}}))
		out := scrape()
		Expect(out).To(ContainSubstring(`keygate_provider_calls_total{model="claude-x",outcome="refused",provider="anthropic"} 1`))
		Expect(out).To(ContainSubstring(`keygate_provider_errors_total{class="budget_tokens_per_day",model="claude-x",provider="anthropic"} 1`))
	})

	It("counts a call the caller abandoned as cancelled, once", func() {
		s, err := m.Provider(scripted{events: []llm.Event{{Kind: llm.EventStart}, {Kind: llm.EventTextStart}}}).Stream(context.Background(), call)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Next()).To(BeTrue())
		Expect(s.Close()).To(Succeed())
		Expect(s.Close()).To(Succeed())
		out := scrape()
		Expect(out).To(ContainSubstring(`keygate_provider_calls_total{model="claude-x",outcome="cancelled",provider="anthropic"} 1`))
		Expect(out).To(ContainSubstring(`keygate_provider_calls_in_flight 0`))
	})

	It("counts started and finished runs", func() {
		runs := m.Runs(fakeRuns{})
		_, err := runs.Claim(context.Background(), ports.RunClaim{RunID: "r1"})
		Expect(err).NotTo(HaveOccurred())
		Expect(runs.Finish(context.Background(), "r1", ports.RunEnd{Status: ports.RunCompleted})).To(Succeed())
		out := scrape()
		Expect(out).To(ContainSubstring(`keygate_runs_started_total{kind="agent"} 1`))
		Expect(out).To(ContainSubstring(`keygate_runs_finished_total{status="completed"} 1`))
	})

	It("also exposes the Go runtime", func() {
		Expect(scrape()).To(ContainSubstring("go_goroutines"))
	})
})
