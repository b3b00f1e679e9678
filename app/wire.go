//go:build wireinject

package app

import (
	"github.com/google/wire"

	"keygate/app/config"
)

// Initialize builds a Keygate from a validated configuration. The cleanup
// releases what the providers opened, in reverse order.
func Initialize(cfg config.Config) (*Keygate, func(), error) {
	wire.Build(
		NewLogger,
		PrepareDataDir,
		NewHTTPServer,
		NewKeygate,
	)
	return nil, nil, nil
}
