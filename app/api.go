package app

import (
	"net/http"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/compatapi"
	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/gateway"
	"keygate/app/teams"
	"keygate/ports"
)

// APIRoutes are the compatible API's routes on the main listener
// (/v1/messages, /v1/chat/completions, /v1/responses, /v1/models).
type APIRoutes map[string]http.Handler

// NewGateway is the compatible API's use case: each request a routed call
// of kind api through the same provider chain as Agent turns (routing, key
// pools, failover, budgets, call records, metrics, traces), on the models
// and aliases Cursor's picker offers.
//
// With teams, /v1/models lists only what the caller's teams allow.
func NewGateway(mp ports.ModelProvider, catalog *appcontrol.Catalog, publishing *appcontrol.Publishing, tm *teams.Service, logger *zap.Logger) *gateway.Service {
	var listed gateway.Published = publishing
	if tm != nil {
		listed = tm.Published(publishing)
	}
	return gateway.New(gateway.Options{Provider: mp, Endpoints: catalog, Published: publishing, Listed: listed, Log: logger.Named("api")})
}

// NewAPIRoutes mounts the compatible API outside the console's guard,
// behind its own check: a gateway token in company mode, this machine's
// local user on a laptop.
func NewAPIRoutes(gate *auth.Gate, tokens *company.Tokens, gw *gateway.Service, logger *zap.Logger) APIRoutes {
	o := compatapi.Options{Gateway: gw, Log: logger.Named("api")}
	if gate.Mode() == auth.ModeLocal {
		o.Local = auth.FromThisMachine
	} else {
		o.Tokens = tokens
	}
	return APIRoutes(compatapi.New(o).Routes())
}
