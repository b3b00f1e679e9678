package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/ports"
)

// Limits of a provider's settings.
const (
	MaxProviderName = 200
	MaxRegion       = 100
	// MaxKeysPerProvider bounds a key pool.
	MaxKeysPerProvider = 64
	// MaxKeyWeight bounds a key's weight.
	MaxKeyWeight = 1000
	// MaxCoolDown bounds a provider's configured cool-down.
	MaxCoolDown = 24 * time.Hour
)

// ProviderSettings are the editable fields of a provider.
type ProviderSettings struct {
	Name         string
	ProviderKind llm.ProviderKind
	BaseURL      string
	UseFullURL   bool
	// CustomHeaders name every header sent to the provider. On a write an
	// empty value keeps the stored value of that name; on a read every
	// value is empty (see ProviderView.Headers): values never leave.
	CustomHeaders map[string]string
	Region        string
	// KeyStrategy zero means round-robin.
	KeyStrategy routing.KeyStrategy
	// CoolDown is how long a key rests after a 429 or 401 the provider
	// gave no Retry-After for; 0 means the router's default.
	CoolDown time.Duration
}

// NewKey is a key to add to a provider's pool.
type NewKey struct {
	Key string
	// Weight is the key's share under weighted selection; 0 means 1.
	Weight int
}

// ProviderKeyView is a key as the console may see it: masked, never the key.
type ProviderKeyView struct {
	ID             string
	Hint           string
	Weight         int
	Position       int
	Enabled        bool
	DisabledReason string
	// DisabledByKeygate: the router took the key out of the pool.
	DisabledByKeygate bool
	// Health is what every replica knows of the key's recent calls;
	// Resting says whether it rests now.
	Health    routing.Health
	Resting   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// keyDisabledPrefix starts the reason of a key the router disabled.
const keyDisabledPrefix = "disabled by Keygate"

// ProviderView is a stored provider as the console may see it.
type ProviderView struct {
	ID       string
	Settings ProviderSettings
	// Headers are the custom headers' names and masked hints.
	Headers   []HeaderView
	Keys      []ProviderKeyView
	CreatedAt time.Time
	UpdatedAt time.Time
	// Models are the ids of the models called at this provider.
	Models []string
}

// normalize trims s and checks every rule of a provider's settings but
// the protocol kind and the outbound policy.
func (s ProviderSettings) normalize() (ProviderSettings, error) {
	s.Name, s.BaseURL, s.Region = strings.TrimSpace(s.Name), strings.TrimSpace(s.BaseURL), strings.TrimSpace(s.Region)
	if err := checkBaseURL(s.BaseURL); err != nil {
		return s, err
	}
	if s.Name == "" {
		s.Name = hostName(s.BaseURL)
	}
	if err := checkText("name", s.Name, MaxProviderName); err != nil {
		return s, err
	}
	if err := checkText("region", s.Region, MaxRegion); err != nil {
		return s, err
	}
	if err := checkHeaders("custom_headers", s.CustomHeaders); err != nil {
		return s, err
	}
	if s.KeyStrategy == 0 {
		s.KeyStrategy = routing.KeysRoundRobin
	}
	if s.CoolDown < 0 || s.CoolDown > MaxCoolDown {
		return s, invalid("cool_down", "use a duration between 0 (the default) and 24 hours")
	}
	return s, nil
}

// checkProvider normalizes s and asks about its protocol and base URL.
func (m *Models) checkProvider(ctx context.Context, s ProviderSettings) (ProviderSettings, error) {
	if err := m.checkKind(s.ProviderKind); err != nil {
		return s, err
	}
	s, err := s.normalize()
	if err != nil {
		return s, err
	}
	return s, m.checkURL(ctx, s.BaseURL)
}

// Providers returns every provider, keys masked.
func (m *Models) Providers(ctx context.Context) ([]ProviderView, error) {
	all, err := m.o.Providers.Providers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list providers: %w", err)
	}
	uses, err := m.modelsByProvider(ctx)
	if err != nil {
		return nil, err
	}
	health, err := m.keyHealth(ctx, all...)
	if err != nil {
		return nil, err
	}
	out := make([]ProviderView, len(all))
	for i, p := range all {
		out[i] = m.providerView(p, uses[p.ID], health)
	}
	return out, nil
}

// Provider returns one provider, keys masked, or ErrNotFound.
func (m *Models) Provider(ctx context.Context, id string) (ProviderView, error) {
	p, err := m.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	uses, err := m.modelsByProvider(ctx)
	if err != nil {
		return ProviderView{}, err
	}
	health, err := m.keyHealth(ctx, p)
	if err != nil {
		return ProviderView{}, err
	}
	return m.providerView(p, uses[id], health), nil
}

// keyHealth reads the shared health of the keys of ps; empty without a
// health store.
func (m *Models) keyHealth(ctx context.Context, ps ...ports.Provider) (map[string]routing.Health, error) {
	if m.o.Health == nil {
		return map[string]routing.Health{}, nil
	}
	var subjects []string
	for _, p := range ps {
		for _, k := range p.Keys {
			subjects = append(subjects, routing.KeySubject(k.ID))
		}
	}
	h, err := m.o.Health.Health(ctx, subjects)
	if err != nil {
		return nil, fmt.Errorf("read key health: %w", err)
	}
	return h, nil
}

// CreateProvider validates s and stores a provider with keys, each sealed
// and bound to the provider's origin. A provider may start without keys.
func (m *Models) CreateProvider(ctx context.Context, s ProviderSettings, keys []NewKey) (ProviderView, error) {
	s, err := m.checkProvider(ctx, s)
	if err != nil {
		return ProviderView{}, err
	}
	if len(keys) > MaxKeysPerProvider {
		return ProviderView{}, invalid("api_keys", fmt.Sprintf("at most %d keys per provider", MaxKeysPerProvider))
	}
	p := ports.Provider{ID: m.o.NewID()}
	s.applyTo(&p)
	origin, err := m.providerOrigin(p)
	if err != nil {
		return ProviderView{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if err := m.setHeaders(&p, ports.Provider{}, s.CustomHeaders, origin, "custom_headers"); err != nil {
		return ProviderView{}, err
	}
	for _, nk := range keys {
		k, err := m.newKey(nk, origin, len(p.Keys))
		if err != nil {
			return ProviderView{}, err
		}
		p.Keys = append(p.Keys, k)
	}
	return m.putProvider(ctx, p)
}

// UpdateProvider replaces the settings of a provider and keeps its keys
// and the values of the headers s names without a value, which is refused
// when they would then be sent to another origin than the one they were
// saved for: such a move needs them entered again.
func (m *Models) UpdateProvider(ctx context.Context, id string, s ProviderSettings) (ProviderView, error) {
	s, err := m.checkProvider(ctx, s)
	if err != nil {
		return ProviderView{}, err
	}
	p, err := m.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	old := p
	s.applyTo(&p)
	origin, err := m.providerOrigin(p)
	if err != nil {
		return ProviderView{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if err := m.setHeaders(&p, old, s.CustomHeaders, origin, "custom_headers"); err != nil {
		return ProviderView{}, err
	}
	for i, k := range p.Keys {
		sk, err := m.openKey(old, k)
		if err != nil {
			if sk.origin, err = m.providerOrigin(old); err != nil {
				return ProviderView{}, err
			}
		}
		if sk.origin != origin {
			return ProviderView{}, invalid("base_url", fmt.Sprintf(
				"the provider's keys were saved for %s and are never sent to %s: create a new provider there, or delete the keys first", sk.origin, origin))
		}
		if sk.legacy {
			if p.Keys[i].Sealed, err = m.sealKey(sk.key, origin); err != nil {
				return ProviderView{}, err
			}
		}
	}
	return m.putProvider(ctx, p)
}

// DeleteProvider removes a provider and its keys; refused while a model
// uses it.
func (m *Models) DeleteProvider(ctx context.Context, id string) error {
	uses, err := m.modelsByProvider(ctx)
	if err != nil {
		return err
	}
	if ids := uses[id]; len(ids) > 0 {
		return invalid("id", fmt.Sprintf("models %s use this provider: point them at another provider or delete them first", strings.Join(ids, ", ")))
	}
	err = m.o.Providers.DeleteProvider(ctx, id)
	if errors.Is(err, ports.ErrConflict) {
		return invalid("id", "a model uses this provider: point it at another provider or delete it first")
	}
	if err != nil {
		return fmt.Errorf("delete provider %s: %w", id, err)
	}
	return nil
}

// AddProviderKey adds a key to a provider's pool, sealed and bound to the
// provider's origin.
func (m *Models) AddProviderKey(ctx context.Context, id string, nk NewKey) (ProviderView, error) {
	p, err := m.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	if len(p.Keys) >= MaxKeysPerProvider {
		return ProviderView{}, invalid("api_key", fmt.Sprintf("at most %d keys per provider", MaxKeysPerProvider))
	}
	origin, err := m.providerOrigin(p)
	if err != nil {
		return ProviderView{}, err
	}
	pos := 0
	for _, k := range p.Keys {
		pos = max(pos, k.Position+1)
	}
	k, err := m.newKey(nk, origin, pos)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys = append(p.Keys, k)
	return m.putProvider(ctx, p)
}

// UpdateProviderKey changes a key's weight (0 keeps it) and, when key is
// not empty, rotates it: the new key takes the old one's place, enabled.
func (m *Models) UpdateProviderKey(ctx context.Context, id, keyID, key string, weight int) (ProviderView, error) {
	p, i, err := m.loadKey(ctx, id, keyID)
	if err != nil {
		return ProviderView{}, err
	}
	if weight < 0 || weight > MaxKeyWeight {
		return ProviderView{}, invalid("weight", fmt.Sprintf("use a weight between 1 and %d, or 0 to keep it", MaxKeyWeight))
	}
	if weight > 0 {
		p.Keys[i].Weight = weight
	}
	if key = strings.TrimSpace(key); key != "" {
		origin, err := m.providerOrigin(p)
		if err != nil {
			return ProviderView{}, err
		}
		nk, err := m.newKey(NewKey{Key: key, Weight: p.Keys[i].Weight}, origin, p.Keys[i].Position)
		if err != nil {
			return ProviderView{}, err
		}
		p.Keys[i].Sealed, p.Keys[i].Enabled, p.Keys[i].DisabledReason = nk.Sealed, true, ""
	}
	return m.putProvider(ctx, p)
}

// SetProviderKeyEnabled takes a key out of the pool or puts it back.
func (m *Models) SetProviderKeyEnabled(ctx context.Context, id, keyID string, enabled bool) (ProviderView, error) {
	p, i, err := m.loadKey(ctx, id, keyID)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys[i].Enabled, p.Keys[i].DisabledReason = enabled, ""
	if !enabled {
		p.Keys[i].DisabledReason = "disabled by an administrator"
	}
	return m.putProvider(ctx, p)
}

// DeleteProviderKey removes a key from a provider's pool.
func (m *Models) DeleteProviderKey(ctx context.Context, id, keyID string) (ProviderView, error) {
	p, i, err := m.loadKey(ctx, id, keyID)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys = slices.Delete(p.Keys, i, i+1)
	return m.putProvider(ctx, p)
}

// newKey checks and seals a key for origin.
func (m *Models) newKey(nk NewKey, origin string, position int) (ports.ProviderKey, error) {
	key := strings.TrimSpace(nk.Key)
	if key == "" {
		return ports.ProviderKey{}, invalid("api_key", "paste the provider's API key; it is stored encrypted and never shown again")
	}
	if err := checkAPIKey("api_key", key); err != nil {
		return ports.ProviderKey{}, err
	}
	if nk.Weight < 0 || nk.Weight > MaxKeyWeight {
		return ports.ProviderKey{}, invalid("weight", fmt.Sprintf("use a weight between 1 and %d", MaxKeyWeight))
	}
	sealed, err := m.sealKey(key, origin)
	if err != nil {
		return ports.ProviderKey{}, err
	}
	return ports.ProviderKey{ID: m.o.NewID(), Position: position, Sealed: sealed, Weight: max(nk.Weight, 1), Enabled: true}, nil
}

// applyTo writes s into p but the headers, which setHeaders seals.
func (s ProviderSettings) applyTo(p *ports.Provider) {
	p.Name, p.Kind, p.BaseURL, p.UseFullURL = s.Name, s.ProviderKind, s.BaseURL, s.UseFullURL
	p.Region, p.KeyStrategy, p.CoolDown = s.Region, s.KeyStrategy, s.CoolDown
}

func (m *Models) loadProvider(ctx context.Context, id string) (ports.Provider, error) {
	p, err := m.o.Providers.Provider(ctx, id)
	if err != nil {
		return ports.Provider{}, fmt.Errorf("load provider %s: %w", id, err)
	}
	return p, nil
}

// loadKey loads a provider and finds one of its keys; an unknown key is
// ErrNotFound.
func (m *Models) loadKey(ctx context.Context, id, keyID string) (ports.Provider, int, error) {
	p, err := m.loadProvider(ctx, id)
	if err != nil {
		return p, 0, err
	}
	i := slices.IndexFunc(p.Keys, func(k ports.ProviderKey) bool { return k.ID == keyID })
	if i < 0 {
		return p, 0, fmt.Errorf("key %s of provider %s: %w", keyID, id, ErrNotFound)
	}
	return p, i, nil
}

func (m *Models) putProvider(ctx context.Context, p ports.Provider) (ProviderView, error) {
	if err := m.o.Providers.PutProvider(ctx, p); err != nil {
		return ProviderView{}, fmt.Errorf("store provider %s: %w", p.ID, err)
	}
	return m.Provider(ctx, p.ID)
}

// modelsByProvider maps each provider id to the ids of its models.
func (m *Models) modelsByProvider(ctx context.Context) (map[string][]string, error) {
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := map[string][]string{}
	for _, c := range all {
		out[c.ProviderID] = append(out[c.ProviderID], c.ID)
	}
	return out, nil
}

// providerView masks the keys and header values of p.
func (m *Models) providerView(p ports.Provider, models []string, health map[string]routing.Health) ProviderView {
	headers := m.headerViews(p)
	v := ProviderView{ID: p.ID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Models: models, Headers: headers,
		Settings: ProviderSettings{Name: p.Name, ProviderKind: p.Kind, BaseURL: p.BaseURL, UseFullURL: p.UseFullURL,
			CustomHeaders: headerNames(headers), Region: p.Region, KeyStrategy: p.KeyStrategy, CoolDown: p.CoolDown}}
	for _, k := range p.Keys {
		h := health[routing.KeySubject(k.ID)]
		v.Keys = append(v.Keys, ProviderKeyView{ID: k.ID, Hint: m.keyHint(p, k), Weight: k.Weight, Position: k.Position,
			Enabled: k.Enabled, DisabledReason: k.DisabledReason,
			DisabledByKeygate: !k.Enabled && strings.HasPrefix(k.DisabledReason, keyDisabledPrefix),
			Health:            h, Resting: h.Cooling(m.o.Now()), CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt})
	}
	return v
}
