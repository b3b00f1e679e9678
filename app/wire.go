//go:build wireinject

package app

import (
	"context"

	"github.com/google/wire"

	"keygate/adapters/secret"
	"keygate/app/config"
	"keygate/ports"
)

// Initialize builds a Keygate from a validated configuration. The cleanup
// releases what the providers opened, in reverse order.
func Initialize(ctx context.Context, cfg config.Config) (*Keygate, func(), error) {
	wire.Build(
		NewLogger,
		PrepareDataDir,
		OpenStore,
		OpenAppendRelay,
		OpenSecretBox,
		wire.Bind(new(ports.SecretBox), new(*secret.Ring)),
		CheckReplica,
		wire.Struct(new(ReplicaCheckOptions), "*"),
		LoadSettings,
		NewModelProvider,
		NewSecretGuard,
		wire.Struct(new(ModelProviderOptions), "*"),
		wire.Struct(new(ControlDeps), "*"),
		NewModels,
		NewProviders,
		NewAliases,
		NewDiscovery,
		NewTester,
		NewPublishing,
		NewTabModel,
		NewFeatureModels,
		NewKeyBinding,
		NewCatalog,
		NewControlRoutes,
		wire.Struct(new(ControlRoutesOptions), "*"),
		NewRetention,
		NewCursorStores,
		NewEngine,
		NewUpstream,
		NewCloudLedger,
		NewWebTools,
		NewTab,
		NewCmdK,
		NewMemories,
		NewCursorServer,
		wire.Struct(new(CursorServerOptions), "*"),
		NewCursorRoutes,
		OpenAgentListener,
		NewAgentServer,
		OpenCA,
		NewProxyEndpoint,
		NewCursorProxy,
		wire.Struct(new(CursorProxyOptions), "*"),
		NewAuthGate,
		NewEgress,
		NewAuditor,
		NewServiceAccounts,
		NewTokens,
		NewTenancy,
		NewBudgets,
		NewTeams,
		NewMetrics,
		NewTracing,
		NewAccountRoutes,
		NewGateway,
		NewAPIRoutes,
		NewSCIMRoutes,
		NewHTTPServer,
		wire.Struct(new(HTTPServerOptions), "*"),
		NewDrain,
		NewKeygate,
		wire.Struct(new(KeygateParts), "*"),
	)
	return nil, nil, nil
}
