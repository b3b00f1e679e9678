package routing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/routing"
	"keygate/app/run/runtest"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	domainrouting "keygate/domain/routing"
	"keygate/ports"
)

// deployment is one fake provider deployment with its model and keys.
type deployment struct {
	server   *providertest.Server
	provider string // provider id
	model    string // model configuration id
	keys     []string
	keyIDs   []string
}

// bench is a router over a real store, the real provider client and two
// fake deployments, east (two keys) and west (one key), behind the alias
// "sonnet" (east first) with a first-token timeout.
type bench struct {
	store     *relstore.Store
	clock     *runtest.Clock
	models    *appcontrol.Models
	providers *appcontrol.Providers
	aliases   *appcontrol.Aliases
	router    *routing.Router
	east      *deployment
	west      *deployment
	audit     ports.AuditLog
	box       ports.SecretBox
	seq       int
}

const firstTokenTimeout = 10 * time.Second

func newBench(store *relstore.Store) *bench {
	ctx := context.Background()
	b := &bench{store: store, clock: runtest.NewClock(), audit: store.Audit()}
	box, err := secret.NewRing([]byte("0123456789abcdef0123456789abcdef"))
	Expect(err).NotTo(HaveOccurred())
	b.box = box
	auditor := company.NewAuditor(store.Audit(), b.clock)
	configs, providers := store.Stores().ModelConfigs, auditor.Providers(store.Providers())
	b.models = appcontrol.NewModels(appcontrol.ModelsOptions{Store: configs, Providers: providers,
		Aliases: store.Routing(), Secrets: box, Protocols: provider.Builtin()})
	b.providers = appcontrol.NewProviders(appcontrol.ProvidersOptions{Providers: providers, Models: configs,
		Secrets: box, Protocols: provider.Builtin()})
	b.aliases = appcontrol.NewAliases(appcontrol.AliasesOptions{Aliases: store.Routing(), Models: configs, Providers: providers})
	b.east = b.deploy(ctx, "east", "sk-east-one-0123456789", "sk-east-two-0123456789")
	b.west = b.deploy(ctx, "west", "sk-west-one-0123456789")
	Expect(store.Routing().PutAlias(ctx, ports.Alias{ID: "sonnet", DisplayName: "Sonnet", Enabled: true,
		Strategy: domainrouting.TargetsOrdered, FirstTokenTimeout: firstTokenTimeout,
		Targets: []ports.AliasTarget{{ModelID: b.east.model, Weight: 1}, {ModelID: b.west.model, Weight: 1}}})).To(Succeed())
	b.router = b.newRouter(store, box, auditor)
	return b
}

// replica is a router over another store on the same database, as a
// second Keygate process runs one.
func (b *bench) replica(store *relstore.Store) *routing.Router {
	return b.newRouter(store, b.box, company.NewAuditor(store.Audit(), b.clock))
}

// newRouter builds a router over store, as each replica does.
func (b *bench) newRouter(store *relstore.Store, box ports.SecretBox, auditor *company.Auditor) *routing.Router {
	client := provider.New(provider.Options{Recorder: store.CallRecords()})
	catalog := appcontrol.NewCatalog(appcontrol.CatalogOptions{Models: store.Stores().ModelConfigs, Providers: store.Providers(),
		Aliases: store.Routing(), Secrets: box, Protocols: provider.Builtin()})
	return routing.New(routing.Options{Next: client, Catalog: catalog, Health: store.Routing(), Affinity: store.Routing(),
		Keys: auditor.Providers(store.Providers()), Windows: store.Routing(), Clock: b.clock, Logger: zap.NewNop()})
}

func (b *bench) deploy(ctx context.Context, name string, keys ...string) *deployment {
	d := &deployment{server: providertest.NewServer(), keys: keys}
	DeferCleanup(d.server.Close)
	var nk []appcontrol.NewKey
	for _, k := range keys {
		nk = append(nk, appcontrol.NewKey{Key: k})
	}
	p, err := b.providers.Create(ctx, appcontrol.ProviderSettings{Name: name, ProviderKind: llm.ProviderOpenAIChat,
		BaseURL: d.server.URL + "/v1", Region: name}, nk)
	Expect(err).NotTo(HaveOccurred())
	d.provider = p.ID
	for _, k := range p.Keys {
		d.keyIDs = append(d.keyIDs, k.ID)
	}
	m, err := b.models.Create(ctx, appcontrol.ModelSettings{DisplayName: "Sonnet " + name, ProviderID: p.ID,
		ModelID: "sonnet-" + name}, "", true)
	Expect(err).NotTo(HaveOccurred())
	d.model = m.Config.ID
	return d
}

// answer is a complete streamed answer.
func answer(text string) providertest.Reply {
	return providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words(text)}))
}

// result is what the engine would have read of one call.
type result struct {
	callID string
	text   string
	err    error
}

// call routes one call of conversation conv on route and reads it whole.
func (b *bench) call(conv, route string) result {
	return b.callWith(b.router, conv, route)
}

func (b *bench) callWith(r *routing.Router, conv, route string) result {
	GinkgoHelper()
	b.seq++
	callID := fmt.Sprintf("run-%d:0", b.seq)
	stream, err := r.Stream(context.Background(), ports.ModelCall{CallID: callID, RunID: fmt.Sprintf("run-%d", b.seq),
		ConversationID: conv, Endpoint: ports.Endpoint{Route: route},
		Request: llm.Request{Model: "as-configured", Messages: []llm.Message{{ID: "u", Role: llm.RoleUser,
			Parts: []llm.Part{{Kind: llm.PartText, Text: "hello"}}}}}})
	if err != nil {
		return result{callID: callID, err: err}
	}
	defer stream.Close()
	var text strings.Builder
	for stream.Next() {
		if ev := stream.Event(); ev.Kind == llm.EventTextDelta {
			text.WriteString(ev.Text)
		}
	}
	return result{callID: callID, text: text.String(), err: stream.Err()}
}

// keysSent lists the keys a deployment received, in order.
func keysSent(d *deployment) []string {
	var out []string
	for _, r := range d.server.Requests() {
		out = append(out, providertest.KeyOf(r.Header))
	}
	return out
}

// records returns the call records of one engine call, attempts in order.
// The client writes each record before its attempt returns.
func (b *bench) records(callID string) []callrecord.Record {
	GinkgoHelper()
	var out []callrecord.Record
	for i := 0; ; i++ {
		id := callID
		if i > 0 {
			id = fmt.Sprintf("%s:route-%d", callID, i)
		}
		rec, err := b.store.CallRecords().CallRecord(context.Background(), id)
		if errors.Is(err, ports.ErrNotFound) {
			return out
		}
		Expect(err).NotTo(HaveOccurred())
		out = append(out, rec)
	}
}

// health reads the shared health of a subject.
func (b *bench) health(subject string) domainrouting.Health {
	GinkgoHelper()
	h, err := b.store.Routing().Health(context.Background(), []string{subject})
	Expect(err).NotTo(HaveOccurred())
	return h[subject]
}

// openPostgres opens two stores on one fresh PostgreSQL database, as two
// replicas do.
func openPostgres() (*relstore.Store, *relstore.Store) {
	GinkgoHelper()
	ctx := context.Background()
	db, err := pgtest.New(ctx)
	Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
	DeferCleanup(db.Close)
	var stores [2]*relstore.Store
	for i := range stores {
		pool, err := postgres.Open(ctx, db.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(pool.Close)
		stores[i] = postgres.NewStore(pool)
	}
	return stores[0], stores[1]
}

func openSQLite() *relstore.Store {
	GinkgoHelper()
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db)
}
