package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"keygate/domain/llm"
	"keygate/ports"
)

// configs reads the stored models and providers the way every use case
// over them needs: one model, the provider it is called at, every provider
// by id, the models of each provider.
type configs struct {
	models    ports.ModelConfigStore
	providers ports.ProviderStore
}

// load reads one model, or ErrNotFound.
func (c configs) load(ctx context.Context, id string) (ports.ModelConfig, error) {
	cfg, err := c.models.ModelConfig(ctx, id)
	if err != nil {
		return ports.ModelConfig{}, fmt.Errorf("load model %s: %w", id, err)
	}
	return cfg, nil
}

// loadProvider reads one provider, or ErrNotFound.
func (c configs) loadProvider(ctx context.Context, id string) (ports.Provider, error) {
	p, err := c.providers.Provider(ctx, id)
	if err != nil {
		return ports.Provider{}, fmt.Errorf("load provider %s: %w", id, err)
	}
	return p, nil
}

// providerOf loads the provider of cfg; a missing one is the zero Provider.
func (c configs) providerOf(ctx context.Context, cfg ports.ModelConfig) (ports.Provider, error) {
	p, err := c.providers.Provider(ctx, cfg.ProviderID)
	if errors.Is(err, ports.ErrNotFound) {
		return ports.Provider{}, nil
	}
	if err != nil {
		return ports.Provider{}, fmt.Errorf("load provider of model %s: %w", cfg.ID, err)
	}
	return p, nil
}

// providersByID loads every provider by id.
func (c configs) providersByID(ctx context.Context) (map[string]ports.Provider, error) {
	all, err := c.providers.Providers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list providers: %w", err)
	}
	out := make(map[string]ports.Provider, len(all))
	for _, p := range all {
		out[p.ID] = p
	}
	return out, nil
}

// modelsByProvider maps each provider id to the ids of its models.
func (c configs) modelsByProvider(ctx context.Context) (map[string][]string, error) {
	all, err := c.models.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := map[string][]string{}
	for _, cfg := range all {
		out[cfg.ProviderID] = append(out[cfg.ProviderID], cfg.ID)
	}
	return out, nil
}

// urlCheck is the outbound policy's verdict on a base URL (see
// ModelsOptions.CheckURL); nil allows every URL.
type urlCheck func(ctx context.Context, rawURL string) error

// check refuses raw as the base_url field's error.
func (f urlCheck) check(ctx context.Context, raw string) error {
	if f == nil {
		return nil
	}
	if err := f(ctx, raw); err != nil {
		return invalid("base_url", err.Error())
	}
	return nil
}

// checkKind refuses a protocol kind that is not registered, naming those
// that are.
func checkKind(protocols ports.ProviderProtocols, kind llm.ProviderKind) error {
	ps := protocols.Protocols()
	names := make([]string, len(ps))
	for i, p := range ps {
		if p.Kind == kind {
			return nil
		}
		names[i] = p.Name
	}
	return invalid("provider_kind", "choose "+joinWords(names, "or"))
}

// fillIn reports whether kind is a fill-in-the-middle protocol: its models
// serve Cursor Tab, never the Agent. A nil protocols or an unknown kind is
// not.
func fillIn(protocols ports.ProviderProtocols, kind llm.ProviderKind) bool {
	if protocols == nil {
		return false
	}
	for _, p := range protocols.Protocols() {
		if p.Kind == kind {
			return p.FillIn
		}
	}
	return false
}

// orRandomID is newID, or 8 random bytes in hex when it is nil.
func orRandomID(newID func() string) func() string {
	if newID != nil {
		return newID
	}
	return func() string {
		var b [8]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
}

// orNow is now, or time.Now when it is nil.
func orNow(now func() time.Time) func() time.Time {
	if now != nil {
		return now
	}
	return time.Now
}
