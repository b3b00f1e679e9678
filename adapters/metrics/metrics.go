package metrics

import (
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics owns the registry and every Keygate collector.
type Metrics struct {
	reg *prometheus.Registry
	now func() time.Time

	runsStarted  *prometheus.CounterVec
	runsFinished *prometheus.CounterVec
	calls        *prometheus.CounterVec
	callErrors   *prometheus.CounterVec
	inFlight     prometheus.Gauge
	tokens       *prometheus.CounterVec
	ttft         *prometheus.HistogramVec
	interToken   *prometheus.HistogramVec
	callDuration *prometheus.HistogramVec
	cloudCalls   *prometheus.CounterVec
	cloudBytes   *prometheus.CounterVec
	secrets      *prometheus.CounterVec
}

// New registers the collectors (plus Go runtime and process collectors).
// now is the clock for latencies; nil means time.Now.
func New(now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	latency := []float64{.05, .1, .25, .5, 1, 2, 4, 8, 16, 32, 64}
	gaps := []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		now: now,
		runsStarted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_runs_started_total", Help: "Agent runs started, by kind.",
		}, []string{"kind"}),
		runsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_runs_finished_total", Help: "Agent runs finished, by final status.",
		}, []string{"status"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_provider_calls_total", Help: "Provider call attempts, by provider kind, model and outcome (completed, error, cancelled, refused by a budget).",
		}, []string{"provider", "model", "outcome"}),
		callErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_provider_errors_total", Help: "Failed or refused provider call attempts, by error class (budget_* for a budget limit).",
		}, []string{"provider", "model", "class"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "keygate_provider_calls_in_flight", Help: "Provider calls streaming now in this process.",
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_tokens_total", Help: "Tokens the providers reported, by type (input, cache_read, cache_write, output).",
		}, []string{"provider", "model", "type"}),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "keygate_time_to_first_token_seconds", Help: "From sending a provider request to the first text or thinking token.",
			Buckets: latency,
		}, []string{"provider", "model"}),
		interToken: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "keygate_inter_token_seconds", Help: "Gaps between consecutive streamed deltas (text, thinking, tool arguments).",
			Buckets: gaps,
		}, []string{"provider", "model"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "keygate_provider_call_duration_seconds", Help: "From sending a provider request to the end of its stream.",
			Buckets: latency,
		}, []string{"provider", "model", "outcome"}),
		cloudCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_cursor_cloud_requests_total", Help: "Requests bound for Cursor's own service, by route and the Cursor cloud policy's decision (passed, refused).",
		}, []string{"service", "method", "decision"}),
		cloudBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_cursor_cloud_bytes_total", Help: "Body bytes exchanged with Cursor's own service, by route, decision and direction (up: sent to Cursor, down: its answers).",
		}, []string{"service", "method", "decision", "direction"}),
		secrets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "keygate_secret_guard_findings_total", Help: "Secrets the secret guard found in outbound prompts, by gitleaks rule id, action (redact, block) and feature (agent, tab, cmdk, commit, api, test).",
		}, []string{"rule", "action", "kind"}),
	}
	m.reg.MustRegister(m.runsStarted, m.runsFinished, m.calls, m.callErrors, m.inFlight, m.tokens,
		m.ttft, m.interToken, m.callDuration, m.cloudCalls, m.cloudBytes, m.secrets,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus exposition format; mount it
// at GET /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// RequireBearer wraps h so that only a request with "Authorization: Bearer
// token" reaches it (Prometheus' authorization.credentials); others get
// 401. The comparison takes the same time whatever the guess.
func RequireBearer(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="Keygate metrics"`)
			http.Error(w, "metrics need the scrape token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Registry is the registry, for adding collectors owned elsewhere.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Closed answers every scrape with 403 and reason, which should say how
// to open the endpoint: for a deployment that set no scrape token where
// metrics must not be public.
func Closed(reason string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, reason, http.StatusForbidden)
	})
}
