package app

import (
	"context"

	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/adapters/relstore"
	appcontrol "keygate/app/control"
	apptab "keygate/app/tab"
	"keygate/ports"
)

// NewTab is the Cursor Tab use case: predictions on the Tab model the
// console or the configuration chose, each a routed call of kind tab
// through the same provider chain as Agent turns (routing, key pools,
// failover, budgets, call records, metrics, traces), fates stored per
// user for the dashboard's acceptance rate.
func NewTab(mp ports.ModelProvider, catalog *appcontrol.Catalog, model *appcontrol.TabModel, store *relstore.Store, logger *zap.Logger) *apptab.Service {
	return apptab.New(apptab.Options{
		Provider:  mp,
		Endpoints: tabEndpoints{catalog},
		Protocols: provider.Builtin(),
		Model:     model.Current,
		Fates:     store.Fates(),
		Log:       logger.Named("tab"),
	})
}

// tabEndpoints resolves Tab's model: a fill-in-the-middle model as well as
// a chat model, which Agent turns never get.
type tabEndpoints struct{ c *appcontrol.Catalog }

func (t tabEndpoints) Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	return t.c.TabEndpoint(ctx, id)
}
