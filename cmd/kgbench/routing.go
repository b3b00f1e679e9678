package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/routing"
	"keygate/app/run"
	"keygate/domain/llm"
	domainrouting "keygate/domain/routing"
	"keygate/ports"
)

// routingSettings size the routing scenario.
type routingSettings struct {
	// Failovers is how many calls measure each of the direct call and the
	// failover.
	Failovers int
	// Turns is the length of the conversation whose cache hit rate is
	// measured.
	Turns int
}

// routingReport is what the routing scenario measured.
type routingReport struct {
	Settings routingSettings
	// Direct is the time to first token of a call routed straight to the
	// second target; Failover the same call through an alias whose first
	// target answers 503 first.
	Direct, Failover dist
	// Sticky and Alternating are the cache hit rates of one conversation on
	// an alias with stickiness, and sent to the two targets in turn.
	Sticky, Alternating cacheRate
	Errors              int
	// MessageTokens is what each message counts at the deployments.
	MessageTokens int
}

func runRouting(ctx context.Context, r *rig) (*routingReport, error) {
	settings := routingSettings{Failovers: 40, Turns: 20}
	if r.quick {
		settings.Failovers = 10
	}
	sub, err := os.MkdirTemp(r.dir, "routing-")
	if err != nil {
		return nil, err
	}
	out, err := measureRouting(ctx, sub, settings)
	return &out, err
}

// cacheRate sums a conversation's usage.
type cacheRate struct{ Read, Input int64 }

// Percent is the cache hit rate in percent.
func (c cacheRate) Percent() float64 { return 100 * c.Rate() }

func (c cacheRate) Rate() float64 {
	if c.Read+c.Input == 0 {
		return 0
	}
	return float64(c.Read) / float64(c.Read+c.Input)
}

// deployment is a fake deployment with a prompt cache per conversation: a
// request whose messages extend what the deployment last saw of the
// conversation reads that prefix from its cache (usage cache read), the
// rest is fresh input; every message counts msgTokens tokens. fail makes
// it answer 503 instead.
type deployment struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen map[string]int
	fail bool
}

const msgTokens = 500

func newDeployment(fail bool) *deployment {
	d := &deployment{seen: map[string]int{}, fail: fail}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	return d
}

func (d *deployment) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if d.fail {
		http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusServiceUnavailable)
		return
	}
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	conv, n := r.Header.Get("X-Session"), len(req.Messages)
	d.mu.Lock()
	cached := min(d.seen[conv], n)
	d.seen[conv] = n
	d.mu.Unlock()
	reply := providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"ok"},
		Usage: providertest.Usage{Input: int64(n-cached) * msgTokens, CacheRead: int64(cached) * msgTokens, Output: 1}}))
	w.Header().Set("Content-Type", "text/event-stream")
	for _, st := range reply.Steps {
		_, _ = w.Write(st.Data)
		w.(http.Flusher).Flush()
	}
}

// measureRouting runs the gateway router over a SQLite store in dir with
// the real provider client and fake deployments: the time a failover adds
// to the first token, and the cache hit rate of a conversation kept on
// its target against one sent to both in turn.
func measureRouting(ctx context.Context, dir string, s routingSettings) (routingReport, error) {
	out := routingReport{Settings: s, MessageTokens: msgTokens}
	db, err := sqlite.Open(ctx, dir, zap.NewNop())
	if err != nil {
		return out, fmt.Errorf("open sqlite: %w", err)
	}
	defer db.Close()
	store := sqlite.NewStore(db)
	box, err := secret.NewRing(secret.NewKey())
	if err != nil {
		return out, err
	}
	clock := run.SystemClock{}
	auditor := company.NewAuditor(store.Audit(), clock)
	configs, audited := store.Stores().ModelConfigs, auditor.Providers(store.Providers())
	models := appcontrol.NewModels(appcontrol.ModelsOptions{Store: configs, Providers: audited,
		Aliases: store.Routing(), Secrets: box, Protocols: provider.Builtin()})
	providers := appcontrol.NewProviders(appcontrol.ProvidersOptions{Providers: audited, Models: configs,
		Secrets: box, Protocols: provider.Builtin()})
	down, east, west := newDeployment(true), newDeployment(false), newDeployment(false)
	for _, d := range []*deployment{down, east, west} {
		defer d.srv.Close()
	}
	target := func(name string, d *deployment) (string, error) {
		p, err := providers.Create(ctx, appcontrol.ProviderSettings{Name: name, ProviderKind: llm.ProviderOpenAIChat,
			BaseURL: d.srv.URL + "/v1", CustomHeaders: map[string]string{"X-Session": "{{SessionId}}"}},
			[]appcontrol.NewKey{{Key: "sk-bench-" + name + "-0123456789"}})
		if err != nil {
			return "", err
		}
		m, err := models.Create(ctx, appcontrol.ModelSettings{DisplayName: name, ProviderID: p.ID, ModelID: "m-" + name}, "", true)
		return m.Config.ID, err
	}
	ids := map[string]string{}
	for name, d := range map[string]*deployment{"down": down, "east": east, "west": west} {
		if ids[name], err = target(name, d); err != nil {
			return out, fmt.Errorf("configure %s: %w", name, err)
		}
	}
	alias := func(id string, strategy domainrouting.TargetStrategy, targets ...string) error {
		a := ports.Alias{ID: id, DisplayName: id, Enabled: true, Strategy: strategy}
		for _, t := range targets {
			a.Targets = append(a.Targets, ports.AliasTarget{ModelID: ids[t], Weight: 1})
		}
		return store.Routing().PutAlias(ctx, a)
	}
	if err := alias("failover", domainrouting.TargetsOrdered, "down", "west"); err != nil {
		return out, err
	}
	if err := alias("pair", domainrouting.TargetsWeighted, "east", "west"); err != nil {
		return out, err
	}
	router := newRouter(store, box, auditor, clock)
	if out.Direct, out.Failover, out.Errors, err = measureFailover(ctx, router, store, ids["down"], ids["west"], s.Failovers); err != nil {
		return out, err
	}
	// With stickiness: the alias keeps the conversation where it started.
	if out.Sticky, err = converse(ctx, router, "bench-sticky", s.Turns, func(int) string { return "pair" }); err != nil {
		return out, err
	}
	// Without: a gateway that balances each request sends the turns to the
	// two targets in turn.
	out.Alternating, err = converse(ctx, router, "bench-alternating", s.Turns, func(i int) string {
		if i%2 == 0 {
			return ids["east"]
		}
		return ids["west"]
	})
	return out, err
}

func newRouter(store *relstore.Store, box ports.SecretBox, auditor *company.Auditor, clock ports.Clock) *routing.Router {
	catalog := appcontrol.NewCatalog(appcontrol.CatalogOptions{Models: store.Stores().ModelConfigs, Providers: store.Providers(),
		Aliases: store.Routing(), Secrets: box, Protocols: provider.Builtin()})
	return routing.New(routing.Options{Next: provider.New(provider.Options{Recorder: store.CallRecords()}), Catalog: catalog,
		Health: store.Routing(), Affinity: store.Routing(), Keys: auditor.Providers(store.Providers()), Windows: store.Routing(),
		Clock: clock, Logger: zap.NewNop()})
}

// measureFailover times the first token of n calls straight to the second
// target and n through the failover alias, interleaved; before each
// failover the first target's rest is cleared, so that every call tries it
// first as a fresh failure would.
func measureFailover(ctx context.Context, router *routing.Router, store *relstore.Store, first, second string, n int) (dist, dist, int, error) {
	var direct, failover []time.Duration
	errs := 0
	for i := range n + 3 {
		d, err := ttft(ctx, router, fmt.Sprintf("bench-direct-%d", i), second)
		if err != nil {
			errs++
		}
		if err := store.Routing().RecordSuccess(ctx, domainrouting.TargetSubject(first), time.Now()); err != nil {
			return dist{}, dist{}, errs, err
		}
		f, err := ttft(ctx, router, fmt.Sprintf("bench-failover-%d", i), "failover")
		if err != nil {
			errs++
		}
		if i >= 3 { // warm-up
			direct, failover = append(direct, d), append(failover, f)
		}
	}
	return newDist(direct), newDist(failover), errs, nil
}

// ttft is the time from the call to its first text.
func ttft(ctx context.Context, router *routing.Router, conv, route string) (time.Duration, error) {
	start := time.Now()
	stream, err := router.Stream(ctx, call(conv, route, 1))
	if err != nil {
		return 0, err
	}
	defer stream.Close()
	var first time.Duration
	for stream.Next() {
		if stream.Event().Kind == llm.EventTextDelta && first == 0 {
			first = time.Since(start)
		}
	}
	return first, stream.Err()
}

// converse runs a conversation of turns calls, each one message longer
// than the previous (as a conversation grows by a turn), on the route
// routeOf names for each turn, and sums the usage the deployments report.
func converse(ctx context.Context, router *routing.Router, conv string, turns int, routeOf func(i int) string) (cacheRate, error) {
	var c cacheRate
	for i := range turns {
		stream, err := router.Stream(ctx, call(conv, routeOf(i), 2*i+1))
		if err != nil {
			return c, fmt.Errorf("turn %d of %s: %w", i, conv, err)
		}
		for stream.Next() {
			if ev := stream.Event(); ev.Kind == llm.EventUsage && ev.Usage != nil {
				c.Read += ev.Usage.CacheRead
				c.Input += ev.Usage.Input
			}
		}
		err = stream.Err()
		_ = stream.Close()
		if err != nil {
			return c, fmt.Errorf("turn %d of %s: %w", i, conv, err)
		}
	}
	return c, nil
}

// call is a model call of conversation conv on route with n messages.
func call(conv, route string, n int) ports.ModelCall {
	msgs := make([]llm.Message, n)
	for i := range msgs {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		msgs[i] = llm.Message{ID: fmt.Sprintf("m%d", i), Role: role, Parts: []llm.Part{{Kind: llm.PartText, Text: fmt.Sprintf("message %d", i)}}}
		if role == llm.RoleAssistant {
			msgs[i] = llm.Message{ID: msgs[i].ID, Role: role, Assistant: &llm.Assistant{Text: fmt.Sprintf("answer %d", i)}}
		}
	}
	return ports.ModelCall{CallID: conv + fmt.Sprintf(":%d", n), RunID: conv, ConversationID: conv,
		Endpoint: ports.Endpoint{Route: route}, Request: llm.Request{Model: "routed", Messages: msgs}}
}
