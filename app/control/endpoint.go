package control

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"keygate/ports"
)

// Endpoint resolves a model into the endpoint a provider call needs: request
// URL, the first enabled key of its provider (opened), headers and extra
// parameters. The run engine's composition uses it too, so tests and real
// calls reach the same URL.
func (m *Models) Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	cfg, err := m.load(ctx, id)
	if err != nil {
		return ports.Endpoint{}, cfg, err
	}
	p, err := m.providerOf(ctx, cfg)
	if err != nil {
		return ports.Endpoint{}, cfg, err
	}
	for _, k := range p.Keys {
		if k.Enabled {
			ep, err := m.endpointOf(cfg, p, k)
			return ep, cfg, err
		}
	}
	return ports.Endpoint{}, cfg, &NoKeyError{ModelID: cfg.ID, Provider: p.Name}
}

// NoKeyError: a model's provider has no enabled key (or the model names no
// provider), so the model cannot be called.
type NoKeyError struct {
	ModelID  string
	Provider string
}

func (e *NoKeyError) Error() string {
	if e.Provider == "" {
		return fmt.Sprintf("model %s names no provider; an administrator must choose one", e.ModelID)
	}
	return fmt.Sprintf("provider %s of model %s has no enabled API key; an administrator must add or enable one", e.Provider, e.ModelID)
}

// endpointOf opens key k of provider p for a call of model cfg and refuses
// it when the request URL's origin is not the one the key was saved for.
// Saves never store such a row; this catches a row changed behind
// Keygate's back.
func (m *Models) endpointOf(cfg ports.ModelConfig, p ports.Provider, k ports.ProviderKey) (ports.Endpoint, error) {
	u, err := m.o.Protocols.RequestURL(p.Kind, p.BaseURL, cfg.ModelID, p.UseFullURL)
	if err != nil {
		return ports.Endpoint{}, fmt.Errorf("request url of model %s: %w", cfg.ID, err)
	}
	sk, err := m.openKey(p, k)
	if err != nil {
		return ports.Endpoint{}, err
	}
	if to, err := Origin(u); err != nil || to != sk.origin {
		return ports.Endpoint{}, &KeyOriginError{ModelID: cfg.ID, SavedFor: sk.origin, SendTo: to}
	}
	hs, err := m.openHeaders(p)
	if err != nil {
		return ports.Endpoint{}, err
	}
	if len(hs.values) > 0 && hs.origin != sk.origin {
		return ports.Endpoint{}, &HeaderOriginError{ModelID: cfg.ID, SavedFor: hs.origin, SendTo: sk.origin}
	}
	return ports.Endpoint{Kind: p.Kind, URL: u, APIKey: sk.key, ExtraParams: cfg.ExtraParams, Headers: hs.values}, nil
}

// DiscoverQuery names an endpoint to list models of. APIKey wins; without
// it the first enabled key of KeyFromProvider, else of KeyFromModel's
// provider, is used, so editing a model does not require pasting its key
// again, but only at the origin that key was saved for.
type DiscoverQuery struct {
	ports.ModelListQuery
	KeyFromModel    string
	KeyFromProvider string
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
	if err := checkLen("key_from_provider_id", q.KeyFromProvider, MaxFilterID); err != nil {
		return nil, err
	}
	if err := m.checkURL(ctx, q.BaseURL); err != nil {
		return nil, err
	}
	if q.KeyFromModel != "" || q.KeyFromProvider != "" {
		if err := m.storedKeyFor(ctx, &q); err != nil {
			return nil, err
		}
	} else if needsStored(q.Headers) {
		return nil, invalid("custom_headers", "enter every header's value to discover models")
	}
	ids, err := m.o.Lister.ListModels(ctx, q.ModelListQuery)
	if err != nil {
		return nil, fmt.Errorf("discover models at %s: %w", q.BaseURL, err)
	}
	return ids, nil
}

// storedKeyFor fills an empty q.APIKey with the stored key q names, and
// the empty header values of q with the stored ones, refusing to send
// either anywhere but the origin it was saved for, and audits the key's
// use.
func (m *Models) storedKeyFor(ctx context.Context, q *DiscoverQuery) error {
	var p ports.Provider
	var err error
	target := q.KeyFromProvider
	if target != "" {
		p, err = m.o.Providers.Provider(ctx, target)
	} else {
		var cfg ports.ModelConfig
		if cfg, err = m.load(ctx, q.KeyFromModel); err != nil {
			return err
		}
		target = cfg.ID
		p, err = m.o.Providers.Provider(ctx, cfg.ProviderID)
	}
	if err != nil {
		return fmt.Errorf("load stored key: %w", err)
	}
	to, err := Origin(q.BaseURL)
	if err != nil {
		return invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if needsStored(q.Headers) {
		if q.Headers, err = m.resolveHeaders(p, q.Headers, to, "custom_headers"); err != nil {
			return err
		}
	}
	if q.APIKey != "" {
		return nil
	}
	i := slices.IndexFunc(p.Keys, func(k ports.ProviderKey) bool { return k.Enabled })
	if i < 0 {
		return invalid("api_key", "no key is stored there; enter the API key to discover models")
	}
	k, err := m.openKey(p, p.Keys[i])
	if err != nil {
		return err
	}
	if to != k.origin {
		return invalid("base_url", fmt.Sprintf(
			"the stored API key of this model was saved for %s and is not sent to %s; enter the API key to discover models there", k.origin, to))
	}
	action := "model.discover"
	if q.KeyFromProvider != "" {
		action = "provider.discover"
	}
	if err := m.auditKeyUse(ctx, action, target, q.BaseURL, k.key); err != nil {
		return err
	}
	q.APIKey = k.key
	return nil
}

// auditKeyUse records that an administrator's action sends a stored key
// of id (a model or a provider) to url.
func (m *Models) auditKeyUse(ctx context.Context, action, id, url, key string) error {
	if m.o.Audit == nil {
		return nil
	}
	if err := m.o.Audit.AuditUse(ctx, action, id, KeyUse{URL: url, KeyHint: MaskKey(key)}); err != nil {
		return fmt.Errorf("audit %s of %s: %w", action, id, err)
	}
	return nil
}
