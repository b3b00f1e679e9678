package control

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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

// endpointOf opens the key of cfg and refuses it when the request URL's
// origin is not the one the key was saved for. Update never stores such a
// row; this catches a row changed behind Keygate's back.
func (m *Models) endpointOf(cfg ports.ModelConfig) (ports.Endpoint, error) {
	u, err := m.o.Protocols.RequestURL(cfg.ProviderKind, cfg.BaseURL, cfg.ModelID, cfg.UseFullURL)
	if err != nil {
		return ports.Endpoint{}, fmt.Errorf("request url of model %s: %w", cfg.ID, err)
	}
	k, err := m.openKey(cfg)
	if err != nil {
		return ports.Endpoint{}, err
	}
	if to, err := Origin(u); err != nil || to != k.origin {
		return ports.Endpoint{}, &KeyOriginError{ModelID: cfg.ID, SavedFor: k.origin, SendTo: to}
	}
	ep := ports.Endpoint{Kind: cfg.ProviderKind, URL: u, APIKey: k.key, ExtraParams: cfg.ExtraParams}
	if len(cfg.CustomHeaders) > 0 {
		if err := json.Unmarshal(cfg.CustomHeaders, &ep.Headers); err != nil {
			return ports.Endpoint{}, fmt.Errorf("custom headers of model %s: %w", cfg.ID, err)
		}
	}
	return ep, nil
}

// DiscoverQuery names an endpoint to list models of. APIKey wins; without
// it the key stored for KeyFromModel is used, so editing a model does not
// require pasting its key again, but only at the origin that key was
// saved for.
type DiscoverQuery struct {
	ports.ModelListQuery
	KeyFromModel string
}

// Discover lists the model ids an upstream endpoint offers.
func (m *Models) Discover(ctx context.Context, q DiscoverQuery) ([]string, error) {
	q.BaseURL, q.APIKey = strings.TrimSpace(q.BaseURL), strings.TrimSpace(q.APIKey)
	if err := checkBaseURL(q.BaseURL); err != nil {
		return nil, err
	}
	if err := checkAPIKey("api_key", q.APIKey); err != nil {
		return nil, err
	}
	if err := checkHeaders("custom_headers", q.Headers); err != nil {
		return nil, err
	}
	if err := m.checkKind(q.Kind); err != nil {
		return nil, err
	}
	if err := checkLen("key_from_model_id", q.KeyFromModel, MaxFilterID); err != nil {
		return nil, err
	}
	if err := m.checkURL(ctx, q.BaseURL); err != nil {
		return nil, err
	}
	if q.APIKey == "" && q.KeyFromModel != "" {
		cfg, err := m.load(ctx, q.KeyFromModel)
		if err != nil {
			return nil, err
		}
		k, err := m.openKey(cfg)
		if err != nil {
			return nil, err
		}
		to, err := Origin(q.BaseURL)
		if err != nil {
			return nil, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
		}
		if to != k.origin {
			return nil, invalid("base_url", fmt.Sprintf(
				"the stored API key of this model was saved for %s and is not sent to %s; enter the API key to discover models there", k.origin, to))
		}
		if err := m.auditKeyUse(ctx, "model.discover", cfg.ID, q.BaseURL, k.key); err != nil {
			return nil, err
		}
		q.APIKey = k.key
	}
	ids, err := m.o.Lister.ListModels(ctx, q.ModelListQuery)
	if err != nil {
		return nil, fmt.Errorf("discover models at %s: %w", q.BaseURL, err)
	}
	return ids, nil
}

// auditKeyUse records that an administrator's action sends the stored key
// of model id to url.
func (m *Models) auditKeyUse(ctx context.Context, action, id, url, key string) error {
	if m.o.Audit == nil {
		return nil
	}
	if err := m.o.Audit.AuditUse(ctx, action, id, KeyUse{URL: url, KeyHint: MaskKey(key)}); err != nil {
		return fmt.Errorf("audit %s of model %s: %w", action, id, err)
	}
	return nil
}
