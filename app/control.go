package app

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/control"
	"keygate/adapters/egress"
	"keygate/adapters/metrics"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/routing"
	"keygate/app/run"
	"keygate/console"
	"keygate/ports"
)

// providerIdleTimeout fails a provider call whose connection is silent this
// long: a stalled stream becomes a transient failure the engine retries
// (docs/engine.md, "Retries"). 90 s leaves room for a model that thinks
// long before its first byte.
const providerIdleTimeout = 90 * time.Second

// ControlRoutes are the control API's and the console's HTTP routes.
type ControlRoutes map[string]http.Handler

// LoadSettings reads the service settings (detailed mode, retention,
// prices) once at start; later changes go through the control API.
func LoadSettings(ctx context.Context, store *relstore.Store, auditor *company.Auditor) (*appcontrol.Settings, error) {
	s := appcontrol.NewSettings(auditor.Settings(store.Stores().Settings))
	if _, err := s.Load(ctx); err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	return s, nil
}

// NewModelProvider is the provider client every model call goes through:
// the router resolves a routed call's target and key per attempt (moving
// to the next key or target before the first output, never after), one
// call record per attempt in the store, detailed mode as configured, and
// each prompt kept so the console can explain cache breaks (whole in
// detailed mode, otherwise only its shape: digests, no text). With
// budgets, a call over its user's limits is refused before it is made.
// Every connection is dialled by the outbound policy, and no redirect leads
// to another origin.
func NewModelProvider(o ModelProviderOptions) ports.ModelProvider {
	client := provider.New(provider.Options{
		Protocols:   provider.Builtin(),
		HTTP:        o.Egress.HTTPClient(),
		Recorder:    o.Store.CallRecords(),
		Detailed:    o.Settings.Detailed,
		Logger:      o.Logger.Named("provider"),
		IdleTimeout: providerIdleTimeout,
	})
	tap := appcontrol.NewPromptTap(client, o.Store.Prompts())
	tap.DetailedWith(o.Settings.Detailed)
	// The router makes each attempt of a routed call through the tracing
	// span, the prompt tap and the client, so every attempt is a span, a
	// kept prompt and a call record of its own.
	var mp ports.ModelProvider = routing.New(routing.Options{
		Next:     o.Tracing.Provider(tap),
		Catalog:  o.Catalog,
		Health:   o.Store.Routing(),
		Affinity: o.Store.Routing(),
		Keys:     o.Auditor.Providers(o.Store.Providers()),
		Windows:  o.Store.Routing(),
		Clock:    run.SystemClock{},
		Logger:   o.Logger.Named("routing"),
	})
	if o.Budgets != nil {
		mp = o.Budgets.Provider(mp)
	}
	// Metrics outermost, so that a call a budget refused is counted too;
	// the routing span covers the budget's check and the router.
	return o.Metrics.Provider(o.Tracing.Route(mp))
}

// ModelProviderOptions are what the provider client is built from;
// Budgets is nil without a budget policy.
type ModelProviderOptions struct {
	Logger   *zap.Logger
	Store    *relstore.Store
	Catalog  *appcontrol.Catalog
	Auditor  *company.Auditor
	Settings *appcontrol.Settings
	Metrics  *metrics.Metrics
	Tracing  *tracing.Tracing
	Budgets  *company.Budgets
	Egress   *egress.Policy
}

// NewModels is the model-configuration use case over the built-in provider
// protocols: keys sealed and bound to their endpoint, discovery (through the outbound policy, like model
// calls), connection tests (each use of a stored key audited), and endpoint
// resolution for runs. A base URL the outbound policy refuses is refused
// when saved. Keys stored before keys were bound, and custom headers
// stored in clear, are sealed bound to their provider's current origin
// here, once: after CheckReplica, so that a replica with another secret
// key never re-seals what it cannot open.
func NewModels(ctx context.Context, logger *zap.Logger, store *relstore.Store, box ports.SecretBox, mp ports.ModelProvider, auditor *company.Auditor, policy *egress.Policy, _ ReplicaChecked) (*appcontrol.Models, error) {
	m := appcontrol.NewModels(modelsOptions(store, box, mp, auditor, policy))
	n, err := m.BindStoredKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("bind stored provider keys and headers to their endpoints: %w", err)
	}
	if n > 0 {
		logger.Info("sealed stored provider keys and custom headers bound to their endpoints", zap.Int("sealed", n))
	}
	return m, nil
}

// NewCatalog is what the router and the Cursor path read of the models:
// routes, targets with their key pools, and the keys opened for each
// attempt (bound to their origin, as everywhere).
func NewCatalog(store *relstore.Store, box ports.SecretBox) *appcontrol.Catalog {
	return appcontrol.NewCatalog(appcontrol.ModelsOptions{
		Store:     store.Stores().ModelConfigs,
		Providers: store.Providers(),
		Aliases:   store.Routing(),
		Secrets:   box,
		Protocols: provider.Builtin(),
	})
}

// modelsOptions are the model use case's dependencies over store, as keygate
// serve and keygate doctor both build them: every write audited, discovery
// and base URLs through the outbound policy.
func modelsOptions(store *relstore.Store, box ports.SecretBox, mp ports.ModelProvider, auditor *company.Auditor, policy *egress.Policy) appcontrol.ModelsOptions {
	return appcontrol.ModelsOptions{
		Store:     auditor.ModelConfigs(store.Stores().ModelConfigs),
		Providers: auditor.Providers(store.Providers()),
		Aliases:   auditor.Aliases(store.Routing()),
		Health:    store.Routing(),
		Secrets:   box,
		Provider:  mp,
		Lister:    control.NewDiscovery(discovery.New(policy.HTTPClient(), provider.Builtin())),
		Protocols: provider.Builtin(),
		Audit:     auditor,
		CheckURL:  policy.CheckURL,
	}
}

// NewControlRoutes mounts the control API and the console.
// A member sees only their own calls, dashboard and conversations, and may
// not change the configuration (adapters/control enforces the roles).
func NewControlRoutes(o ControlRoutesOptions) ControlRoutes {
	store, tenancy := o.Store, o.Tenancy
	calls := tenancy.CallLister(store.CallRecords())
	conversations := appcontrol.NewConversations(tenancy.Conversations(store.Conversations()),
		tenancy.ConsoleConversations(store.Stores().Conversations))
	conversations.NameModelsWith(o.Models.Names)
	return control.Routes(control.Options{
		Models:   o.Models,
		Settings: o.Settings,
		Calls: appcontrol.NewCalls(appcontrol.CallsOptions{
			Lister: calls, Reader: tenancy.CallReader(store.CallRecords()), Prompts: store.Prompts()}),
		Dashboard:     appcontrol.NewDashboard(calls, o.Settings, nil),
		Conversations: conversations,
		Setup:         cursorSetup(o.Endpoint, o.Web),
		Console:       console.Dist(),
		Guard:         o.Gate.Guard,
		Logger:        o.Logger,
	})
}

// ControlRoutesOptions are what the control API and the console are
// built from.
type ControlRoutesOptions struct {
	Endpoint ProxyEndpoint
	Web      WebTools
	Logger   *zap.Logger
	Store    *relstore.Store
	Tenancy  *company.Tenancy
	Settings *appcontrol.Settings
	Models   *appcontrol.Models
	Gate     *auth.Gate
}

// NewRetention deletes the details of detailed calls and the prompts kept
// of every call once they are older than the configured age.
func NewRetention(store *relstore.Store, settings *appcontrol.Settings) *appcontrol.Retention {
	r := appcontrol.NewRetention(settings, store.CallRecords(), nil)
	r.PurgePromptsWith(store.Prompts())
	return r
}

// cursorSetup answers the console's Connect Cursor page: the proxy URL
// developers use (https:// when the proxy speaks TLS or sits behind a TLS
// terminator), the command that writes it into Cursor's settings, and
// which of the agent's web tools this installation offers, or why not.
func cursorSetup(endpoint ProxyEndpoint, web WebTools) func(context.Context) (control.Setup, error) {
	return func(context.Context) (control.Setup, error) {
		s := control.Setup{CACertificateURL: "/ca.crt", AgentTools: []control.AgentTool{
			{Name: "WebSearch", Offered: web.Search != nil, Detail: web.SearchStatus},
			{Name: "WebFetch", Offered: web.Fetch != nil, Detail: web.FetchStatus},
		}}
		if endpoint.URL != "" {
			s.ProxyURL = endpoint.URL
			s.SetupCommand = "keygate cursor setup --proxy " + endpoint.URL
		}
		return s, nil
	}
}
