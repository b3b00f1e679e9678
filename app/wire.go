//go:build wireinject

package app

import (
	"context"

	"github.com/google/wire"

	"keygate/app/config"
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
		LoadSettings,
		NewModelProvider,
		NewModels,
		NewControlRoutes,
		NewRetention,
		NewEngine,
		NewUpstream,
		NewWebTools,
		NewCursorServer,
		NewCursorRoutes,
		OpenAgentListener,
		NewAgentServer,
		OpenCA,
		NewProxyEndpoint,
		NewCursorProxy,
		NewAuthGate,
		NewEgress,
		NewAuditor,
		NewTokens,
		NewTenancy,
		NewBudgets,
		NewMetrics,
		NewTracing,
		NewAccountRoutes,
		NewHTTPServer,
		NewKeygate,
	)
	return nil, nil, nil
}
