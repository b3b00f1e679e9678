package ports

import (
	"context"

	"keygate/domain/llm"
)

// ModelLister asks an upstream endpoint which models it offers.
type ModelLister interface {
	// ListModels returns the sorted, de-duplicated model ids of the endpoint.
	// Upstream failures are *llm.ProviderError; a cancelled ctx yields
	// ctx.Err() (wrapped).
	ListModels(ctx context.Context, q ModelListQuery) ([]string, error)
}

// ModelListQuery says whose models to list. APIKey is a secret: listers send
// it only in the protocol's auth header.
type ModelListQuery struct {
	Kind    llm.ProviderKind
	BaseURL string
	APIKey  string
	Headers map[string]string
	// Cloud are a cloud provider's account settings; APIKey is then the
	// pool's secret (empty for an ambient credential source).
	Cloud CloudSettings
}
