package control

import (
	"context"
	"fmt"

	"keygate/ports"
)

// EndpointsOptions are the dependencies of [Endpoints].
type EndpointsOptions struct {
	Models    ports.ModelConfigStore
	Providers ports.ProviderStore
	// Secrets opens the provider's keys and headers.
	Secrets ports.SecretBox
	// Protocols derive each model's request URL.
	Protocols ports.ProviderProtocols
}

// Endpoints resolves a model into the endpoint a direct provider call
// needs (a connection test's): the key opened only for the origin it was
// saved for. It is safe for concurrent use.
type Endpoints struct {
	cfg  configs
	seal sealing
}

// NewEndpoints returns the endpoint resolution over o.
func NewEndpoints(o EndpointsOptions) *Endpoints {
	return &Endpoints{cfg: configs{models: o.Models, providers: o.Providers},
		seal: sealing{secrets: o.Secrets, protocols: o.Protocols}}
}

// Endpoint resolves a model into the endpoint a provider call needs: request
// URL, the first enabled key of its provider (opened), headers and extra
// parameters. The router's attempts go through Catalog, which opens keys
// the same way (sealing.endpointOf), so tests and real calls reach the
// same URL.
func (e *Endpoints) Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	cfg, err := e.cfg.load(ctx, id)
	if err != nil {
		return ports.Endpoint{}, cfg, err
	}
	p, err := e.cfg.providerOf(ctx, cfg)
	if err != nil {
		return ports.Endpoint{}, cfg, err
	}
	for _, k := range usableKeys(p) {
		if k.Enabled {
			ep, err := e.seal.endpointOf(cfg, p, k)
			return ep, cfg, err
		}
	}
	return ports.Endpoint{}, cfg, &NoKeyError{ModelID: cfg.ID, Provider: p.Name}
}

// NoKeyError means a model's provider has no enabled key (or the model names no
// provider), so the model cannot be called.
type NoKeyError struct {
	ModelID  string
	Provider string
}

// Error says what an administrator must add or choose.
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
func (s sealing) endpointOf(cfg ports.ModelConfig, p ports.Provider, k ports.ProviderKey) (ports.Endpoint, error) {
	u, err := s.protocols.RequestURL(p.Kind, p.BaseURL, cfg.ModelID, p.UseFullURL)
	if err != nil {
		return ports.Endpoint{}, fmt.Errorf("request url of model %s: %w", cfg.ID, err)
	}
	if k.ID == ambientKeyID(p.ID) && p.Cloud.Source.Keyless() {
		// No secret to open: the protocol fetches credentials from the
		// source; custom headers still go only where they were saved for.
		hs, err := s.openHeaders(p)
		if err != nil {
			return ports.Endpoint{}, err
		}
		if to, err := Origin(u); len(hs.values) > 0 && (err != nil || hs.origin != to) {
			return ports.Endpoint{}, &HeaderOriginError{ModelID: cfg.ID, SavedFor: hs.origin, SendTo: to}
		}
		return ports.Endpoint{Kind: p.Kind, URL: u, ExtraParams: cfg.ExtraParams, Headers: hs.values, Cloud: p.Cloud}, nil
	}
	sk, err := s.openKey(p, k)
	if err != nil {
		return ports.Endpoint{}, err
	}
	if to, err := Origin(u); err != nil || to != sk.origin {
		return ports.Endpoint{}, &KeyOriginError{ModelID: cfg.ID, SavedFor: sk.origin, SendTo: to}
	}
	hs, err := s.openHeaders(p)
	if err != nil {
		return ports.Endpoint{}, err
	}
	if len(hs.values) > 0 && hs.origin != sk.origin {
		return ports.Endpoint{}, &HeaderOriginError{ModelID: cfg.ID, SavedFor: hs.origin, SendTo: sk.origin}
	}
	return ports.Endpoint{Kind: p.Kind, URL: u, APIKey: sk.key, ExtraParams: cfg.ExtraParams, Headers: hs.values, Cloud: p.Cloud}, nil
}

// ambientKeyID is the id of the one pool entry a provider with a keyless
// credential source (a profile, web identity, the instance role, the
// default chain) is called with: no secret, its health tracked like a key's.
func ambientKeyID(providerID string) string { return providerID + ":ambient" }

// usableKeys are the keys a provider's calls use: its stored pool, or for a
// keyless credential source the one ambient entry.
func usableKeys(p ports.Provider) []ports.ProviderKey {
	if !p.Cloud.Source.Keyless() {
		return p.Keys
	}
	return []ports.ProviderKey{{ID: ambientKeyID(p.ID), Weight: 1, Enabled: true}}
}
