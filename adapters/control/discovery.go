package control

import (
	"context"

	"keygate/adapters/provider/discovery"
	"keygate/ports"
)

// Discovery is ports.ModelLister over the provider adapter's model listing.
type Discovery struct {
	lister *discovery.Lister
}

var _ ports.ModelLister = Discovery{}

// NewDiscovery wraps a discovery.Lister.
func NewDiscovery(l *discovery.Lister) Discovery { return Discovery{lister: l} }

// ListModels implements ports.ModelLister.
func (d Discovery) ListModels(ctx context.Context, q ports.ModelListQuery) ([]string, error) {
	return d.lister.List(ctx, discovery.Query{Kind: q.Kind, BaseURL: q.BaseURL, APIKey: q.APIKey, Headers: q.Headers, Cloud: q.Cloud})
}
