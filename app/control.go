package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	agentsetup "keygate/adapters/compatapi/setup"
	"keygate/adapters/control"
	"keygate/adapters/egress"
	"keygate/adapters/metrics"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/app/company"
	"keygate/app/config"
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
		Metadata:    o.Egress.InstanceMetadataClient(),
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

// ControlDeps are what the console's use cases are built from, as keygate
// serve and keygate doctor both build them: the store, every write to it
// audited, the secret box that seals provider keys and custom headers
// bound to their endpoint, and the outbound policy that discovery goes
// through and that refuses a base URL when it is saved.
type ControlDeps struct {
	Store   *relstore.Store
	Box     ports.SecretBox
	Auditor *company.Auditor
	Egress  *egress.Policy
}

// NewModels is the model-configuration use case over the built-in provider
// protocols; a model saved with a connection of its own keeps a provider
// in step, its key sealed and bound to its endpoint.
func NewModels(d ControlDeps) *appcontrol.Models {
	return appcontrol.NewModels(appcontrol.ModelsOptions{
		Store:     d.Auditor.ModelConfigs(d.Store.Stores().ModelConfigs),
		Providers: d.Auditor.Providers(d.Store.Providers()),
		Aliases:   d.Auditor.Aliases(d.Store.Routing()),
		Secrets:   d.Box,
		Protocols: provider.Builtin(),
		CheckURL:  d.Egress.CheckURL,
	})
}

// NewProviders manages providers and their key pools, keys and custom
// headers sealed and bound to the provider's endpoint, with the shared
// health of each key.
func NewProviders(d ControlDeps) *appcontrol.Providers {
	return appcontrol.NewProviders(appcontrol.ProvidersOptions{
		Providers: d.Auditor.Providers(d.Store.Providers()),
		Models:    d.Store.Stores().ModelConfigs,
		Health:    d.Store.Routing(),
		Secrets:   d.Box,
		Protocols: provider.Builtin(),
		CheckURL:  d.Egress.CheckURL,
	})
}

// NewAliases manages the aliases, with the shared health of each target.
func NewAliases(d ControlDeps) *appcontrol.Aliases {
	return appcontrol.NewAliases(appcontrol.AliasesOptions{
		Aliases:   d.Auditor.Aliases(d.Store.Routing()),
		Models:    d.Store.Stores().ModelConfigs,
		Providers: d.Store.Providers(),
		Health:    d.Store.Routing(),
	})
}

// NewDiscovery lists an endpoint's models through the outbound policy,
// like model calls; each use of a stored key is audited.
func NewDiscovery(d ControlDeps) *appcontrol.Discovery {
	return appcontrol.NewDiscovery(appcontrol.DiscoveryOptions{
		Lister:    control.NewDiscovery(discovery.New(d.Egress.HTTPClient(), provider.Builtin()).WithMetadata(d.Egress.InstanceMetadataClient())),
		Models:    d.Store.Stores().ModelConfigs,
		Providers: d.Store.Providers(),
		Secrets:   d.Box,
		Protocols: provider.Builtin(),
		CheckURL:  d.Egress.CheckURL,
		Audit:     d.Auditor,
	})
}

// NewTester runs connection tests through mp, the provider client every
// model call goes through; each use of a stored key is audited.
func NewTester(d ControlDeps, mp ports.ModelProvider) *appcontrol.Tester {
	return appcontrol.NewTester(appcontrol.TesterOptions{Endpoints: newEndpoints(d.Store, d.Box), Provider: mp,
		Protocols: provider.Builtin(), Audit: d.Auditor})
}

// newEndpoints resolves a model into its endpoint, key opened.
func newEndpoints(store *relstore.Store, box ports.SecretBox) *appcontrol.Endpoints {
	return appcontrol.NewEndpoints(appcontrol.EndpointsOptions{Models: store.Stores().ModelConfigs, Providers: store.Providers(),
		Secrets: box, Protocols: provider.Builtin()})
}

// NewPublishing is what Cursor's picker offers and which model ids
// Keygate serves.
func NewPublishing(store *relstore.Store) *appcontrol.Publishing {
	pb := appcontrol.NewPublishing(store.Stores().ModelConfigs, store.Routing(), provider.Builtin())
	pb.MapWith(store.ModelMappings())
	return pb
}

// NewTabModel is which model or alias serves Cursor Tab: the console's
// setting (its changes audited like every setting) once saved, else the
// configuration's --tab-model.
func NewTabModel(cfg config.Config, store *relstore.Store, auditor *company.Auditor) *appcontrol.TabModel {
	return appcontrol.NewTabModel(appcontrol.TabModelOptions{
		Settings:   auditor.Settings(store.Stores().Settings),
		Models:     store.Stores().ModelConfigs,
		Aliases:    store.Routing(),
		Configured: cfg.TabModel,
	})
}

// NewFeatureModels are the model settings of Tab, inline edits and commit
// messages: each the console's setting once saved, else the
// configuration's (--tab-model, --cmdk-model, --commit-model); inline
// edits default to the first published model, commit messages and branch
// names to the user's last Agent model, then the first published one.
// Tab has no default: it needs a model chosen for it.
func NewFeatureModels(cfg config.Config, tab *appcontrol.TabModel, store *relstore.Store, auditor *company.Auditor, pb *appcontrol.Publishing) *appcontrol.FeatureModels {
	opts := func(f appcontrol.Feature, configured string, def func(context.Context) (string, error), rule string) appcontrol.FeatureModelOptions {
		return appcontrol.FeatureModelOptions{Feature: f, Settings: auditor.Settings(store.Stores().Settings),
			Models: store.Stores().ModelConfigs, Aliases: store.Routing(), Configured: configured, Default: def, DefaultRule: rule}
	}
	return &appcontrol.FeatureModels{
		Tab: tab,
		Edit: appcontrol.NewFeatureModel(opts(appcontrol.FeatureEdit, cfg.CmdKModel, appcontrol.FirstPublished(pb),
			"the first published model")),
		Commit: appcontrol.NewFeatureModel(opts(appcontrol.FeatureCommit, cfg.CommitModel, appcontrol.LastAgentModel(store.CallRecords(), pb),
			"the user's last Agent model, else the first published model")),
	}
}

// NewKeyBinding is the start-up migration that seals the keys stored
// before keys were bound, and the custom headers stored in clear, bound
// to their provider's current origin. Keygate.Run runs it before
// anything serves; it depends on ReplicaChecked so that a replica with
// another secret key never re-seals what it cannot open.
func NewKeyBinding(d ControlDeps, _ ReplicaChecked) *appcontrol.KeyBinding {
	return appcontrol.NewKeyBinding(d.Auditor.Providers(d.Store.Providers()), d.Box, provider.Builtin())
}

// NewCatalog is what the router and the Cursor path read of the models:
// routes, targets with their key pools, and the keys opened for each
// attempt (bound to their origin, as everywhere).
func NewCatalog(store *relstore.Store, box ports.SecretBox) *appcontrol.Catalog {
	return appcontrol.NewCatalog(appcontrol.CatalogOptions{
		Models:    store.Stores().ModelConfigs,
		Providers: store.Providers(),
		Aliases:   store.Routing(),
		Secrets:   box,
		Protocols: provider.Builtin(),
		Mappings:  store.ModelMappings(),
	})
}

// NewControlRoutes mounts the control API and the console.
// A member sees only their own calls, dashboard and conversations, and may
// not change the configuration (adapters/control enforces the roles).
func NewControlRoutes(o ControlRoutesOptions) ControlRoutes {
	store, tenancy := o.Store, o.Tenancy
	calls := tenancy.CallLister(store.CallRecords())
	conversations := appcontrol.NewConversations(tenancy.Conversations(store.Conversations()),
		tenancy.ConsoleConversations(store.Stores().Conversations))
	conversations.NameModelsWith(o.Publishing.Names)
	dashboard := appcontrol.NewDashboard(calls, o.Settings, nil)
	dashboard.ReadFatesWith(tenancy.SuggestionFateLister(store.Fates()))
	return control.Routes(control.Options{
		Models:    o.Models,
		Providers: o.Providers,
		Aliases:   o.Aliases,
		Discovery: o.Discovery,
		Tester:    o.Tester,
		Settings:  o.Settings,
		TabModel:  o.TabModel,
		Features:  o.Features,
		Calls: appcontrol.NewCalls(appcontrol.CallsOptions{
			Lister: calls, Reader: tenancy.CallReader(store.CallRecords()), Prompts: store.Prompts()}),
		Dashboard:     dashboard,
		CursorCloud:   appcontrol.NewCursorCloud(store.CloudUsage(), o.Config.CursorCloudPolicy(), o.CursorRoutes.Serves, nil),
		Conversations: conversations,
		Memories:      appcontrol.NewMemories(store.Memories()),
		Mappings:      appcontrol.NewMappings(store.ModelMappings(), store.Stores().ModelConfigs, store.Routing()),
		Setup:         cursorSetup(o.Endpoint, o.Web, o.Publishing),
		Console:       console.Dist(),
		Guard:         o.Gate.Guard,
		Logger:        o.Logger,
	})
}

// ControlRoutesOptions are what the control API and the console are
// built from.
type ControlRoutesOptions struct {
	Config config.Config
	// CursorRoutes are the Cursor routes this Keygate mounts (the Cursor
	// cloud page counts them as served).
	CursorRoutes CursorRoutes
	Endpoint     ProxyEndpoint
	Web          WebTools
	Logger       *zap.Logger
	Store        *relstore.Store
	Tenancy      *company.Tenancy
	Settings     *appcontrol.Settings
	Gate         *auth.Gate
	// The console's use cases over the models.
	Models     *appcontrol.Models
	Providers  *appcontrol.Providers
	Aliases    *appcontrol.Aliases
	Discovery  *appcontrol.Discovery
	Tester     *appcontrol.Tester
	Publishing *appcontrol.Publishing
	TabModel   *appcontrol.TabModel
	Features   *appcontrol.FeatureModels
}

// NewRetention deletes the details of detailed calls, the prompts kept of
// every call and the fates of Tab suggestions once they are older than the
// configured age.
func NewRetention(store *relstore.Store, settings *appcontrol.Settings) *appcontrol.Retention {
	r := appcontrol.NewRetention(settings, store.CallRecords(), nil)
	r.PurgePromptsWith(store.Prompts())
	r.PurgeFatesWith(store.Fates())
	return r
}

// codingAgents are the settings of Claude Code and the Codex CLI for the
// compatible API, naming the first model the picker offers (or MODEL).
func codingAgents(ctx context.Context, published *appcontrol.Publishing) []control.CodingAgent {
	const origin = "{{ORIGIN}}"
	model := "MODEL"
	if cfgs, err := published.Published(ctx); err == nil && len(cfgs) > 0 && cfgs[0].DisplayName != "" {
		model = cfgs[0].DisplayName
	}
	quoted := "'" + strings.ReplaceAll(model, "'", `'\''`) + "'"
	return []control.CodingAgent{
		{Name: "Claude Code", Command: "keygate setup claude-code --url " + origin + " --model " + quoted,
			Settings: agentsetup.ClaudeCode(origin, "", model)},
		{Name: "Codex CLI", Command: "keygate setup codex --url " + origin + " --model " + quoted + " --write",
			Settings: agentsetup.Codex(origin, model)},
	}
}

// cursorSetup answers the console's Connect Cursor page: the proxy URL
// developers use (https:// when the proxy speaks TLS or sits behind a TLS
// terminator), the command that writes it into Cursor's settings, and
// which of the agent's web tools this installation offers, or why not.
func cursorSetup(endpoint ProxyEndpoint, web WebTools, published *appcontrol.Publishing) func(context.Context) (control.Setup, error) {
	return func(ctx context.Context) (control.Setup, error) {
		s := control.Setup{CACertificateURL: "/ca.crt", AgentTools: []control.AgentTool{
			{Name: "WebSearch", Offered: web.Search != nil, Detail: web.SearchStatus},
			{Name: "WebFetch", Offered: web.Fetch != nil, Detail: web.FetchStatus},
		}}
		if endpoint.URL != "" {
			s.ProxyURL = endpoint.URL
			s.SetupCommand = "keygate cursor setup --proxy " + endpoint.URL
		}
		s.CodingAgents = codingAgents(ctx, published)
		return s, nil
	}
}
