package control

import (
	"context"
	"encoding/json"
	"fmt"

	"keygate/ports"
)

// Endpoint resolves a model into the endpoint a provider call needs: request
// URL, opened API key, headers and extra parameters. The run engine's
// composition uses it too, so tests and real calls reach the same URL.
func (m *Models) Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	cfg, err := m.load(ctx, id)
	if err != nil {
		return ports.Endpoint{}, cfg, err
	}
	ep, err := m.endpointOf(cfg)
	return ep, cfg, err
}

func (m *Models) endpointOf(cfg ports.ModelConfig) (ports.Endpoint, error) {
	u, err := m.o.RequestURL(cfg.BaseURL, cfg.UseFullURL, cfg.ProviderKind)
	if err != nil {
		return ports.Endpoint{}, fmt.Errorf("request url of model %s: %w", cfg.ID, err)
	}
	key, err := m.apiKey(cfg)
	if err != nil {
		return ports.Endpoint{}, err
	}
	ep := ports.Endpoint{Kind: cfg.ProviderKind, URL: u, APIKey: key, ExtraParams: cfg.ExtraParams}
	if len(cfg.CustomHeaders) > 0 {
		if err := json.Unmarshal(cfg.CustomHeaders, &ep.Headers); err != nil {
			return ports.Endpoint{}, fmt.Errorf("custom headers of model %s: %w", cfg.ID, err)
		}
	}
	return ep, nil
}

// DiscoverQuery names an endpoint to list models of. APIKey wins; without
// it the key stored for KeyFromModel is used, so editing a model does not
// require pasting its key again.
type DiscoverQuery struct {
	ports.ModelListQuery
	KeyFromModel string
}

// Discover lists the model ids an upstream endpoint offers.
func (m *Models) Discover(ctx context.Context, q DiscoverQuery) ([]string, error) {
	if err := checkBaseURL(q.BaseURL); err != nil {
		return nil, err
	}
	if q.APIKey == "" && q.KeyFromModel != "" {
		cfg, err := m.load(ctx, q.KeyFromModel)
		if err != nil {
			return nil, err
		}
		if q.APIKey, err = m.apiKey(cfg); err != nil {
			return nil, err
		}
	}
	ids, err := m.o.Lister.ListModels(ctx, q.ModelListQuery)
	if err != nil {
		return nil, fmt.Errorf("discover models at %s: %w", q.BaseURL, err)
	}
	return ids, nil
}
