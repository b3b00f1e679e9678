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
	// Cloud are the account settings of a cloud protocol's provider
	// (region, project, credential source); zero for the others.
	Cloud ports.CloudSettings
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

// ProvidersOptions are the dependencies of [Providers].
type ProvidersOptions struct {
	// Providers holds the providers and their key pools.
	Providers ports.ProviderStore
	// Models holds the models, which name the provider they are called
	// at (a provider in use is not deleted).
	Models ports.ModelConfigStore
	// Health is the shared health of keys the console shows; nil shows
	// none.
	Health ports.RouteHealth
	// Secrets seals the keys and custom headers, bound to the provider's
	// origin.
	Secrets ports.SecretBox
	// Protocols are the provider protocols; they derive the origin of a
	// provider's requests.
	Protocols ports.ProviderProtocols
	// NewID makes provider and key ids; nil uses 8 random bytes in hex.
	NewID func() string
	// Now is the clock that tells a resting key; nil uses time.Now.
	Now func() time.Time
	// CheckURL is the outbound policy's verdict on a base URL, asked on
	// every save (see ModelsOptions.CheckURL); nil allows every URL.
	CheckURL func(ctx context.Context, rawURL string) error
}

// Providers manages the providers models are called at: their
// connection, sealed custom headers and key pools. Keys and header values
// never leave it, only masked hints. It is safe for concurrent use;
// concurrent edits of the same provider are last-writer-wins.
type Providers struct {
	o        ProvidersOptions
	newID    func() string
	now      func() time.Time
	checkURL urlCheck
	cfg      configs
	seal     sealing
}

// NewProviders returns the provider use cases.
func NewProviders(o ProvidersOptions) *Providers {
	return &Providers{o: o, newID: orRandomID(o.NewID), now: orNow(o.Now), checkURL: o.CheckURL,
		cfg:  configs{models: o.Models, providers: o.Providers},
		seal: sealing{secrets: o.Secrets, protocols: o.Protocols}}
}

// check normalizes s and asks about its protocol and base URL.
func (pv *Providers) check(ctx context.Context, s ProviderSettings) (ProviderSettings, error) {
	if err := checkKind(pv.o.Protocols, s.ProviderKind); err != nil {
		return s, err
	}
	s, err := s.normalize()
	if err != nil {
		return s, err
	}
	if s.Cloud, err = checkCloud(pv.o.Protocols, s.ProviderKind, s.Cloud); err != nil {
		return s, err
	}
	return s, pv.checkURL.check(ctx, s.BaseURL)
}

// List returns every provider, keys masked.
func (pv *Providers) List(ctx context.Context) ([]ProviderView, error) {
	all, err := pv.o.Providers.Providers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list providers: %w", err)
	}
	uses, err := pv.cfg.modelsByProvider(ctx)
	if err != nil {
		return nil, err
	}
	health, err := pv.keyHealth(ctx, all...)
	if err != nil {
		return nil, err
	}
	out := make([]ProviderView, len(all))
	for i, p := range all {
		out[i] = pv.view(p, uses[p.ID], health)
	}
	return out, nil
}

// Get returns one provider, keys masked, or ErrNotFound.
func (pv *Providers) Get(ctx context.Context, id string) (ProviderView, error) {
	p, err := pv.cfg.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	uses, err := pv.cfg.modelsByProvider(ctx)
	if err != nil {
		return ProviderView{}, err
	}
	health, err := pv.keyHealth(ctx, p)
	if err != nil {
		return ProviderView{}, err
	}
	return pv.view(p, uses[id], health), nil
}

// keyHealth reads the shared health of the keys of ps; empty without a
// health store.
func (pv *Providers) keyHealth(ctx context.Context, ps ...ports.Provider) (map[string]routing.Health, error) {
	if pv.o.Health == nil {
		return map[string]routing.Health{}, nil
	}
	var subjects []string
	for _, p := range ps {
		for _, k := range p.Keys {
			subjects = append(subjects, routing.KeySubject(k.ID))
		}
	}
	h, err := pv.o.Health.Health(ctx, subjects)
	if err != nil {
		return nil, fmt.Errorf("read key health: %w", err)
	}
	return h, nil
}

// Create validates s and stores a provider with keys, each sealed
// and bound to the provider's origin. A provider may start without keys.
func (pv *Providers) Create(ctx context.Context, s ProviderSettings, keys []NewKey) (ProviderView, error) {
	s, err := pv.check(ctx, s)
	if err != nil {
		return ProviderView{}, err
	}
	if len(keys) > MaxKeysPerProvider {
		return ProviderView{}, invalid("api_keys", fmt.Sprintf("at most %d keys per provider", MaxKeysPerProvider))
	}
	p := ports.Provider{ID: pv.newID()}
	s.applyTo(&p)
	origin, err := pv.seal.providerOrigin(p)
	if err != nil {
		return ProviderView{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if err := pv.seal.setHeaders(&p, ports.Provider{}, s.CustomHeaders, origin, "custom_headers"); err != nil {
		return ProviderView{}, err
	}
	for _, nk := range keys {
		k, err := pv.newKey(nk, origin, len(p.Keys))
		if err != nil {
			return ProviderView{}, err
		}
		p.Keys = append(p.Keys, k)
	}
	return pv.put(ctx, p)
}

// Update replaces the settings of a provider and keeps its keys
// and the values of the headers s names without a value, which is refused
// when they would then be sent to another origin than the one they were
// saved for: such a move needs them entered again.
func (pv *Providers) Update(ctx context.Context, id string, s ProviderSettings) (ProviderView, error) {
	s, err := pv.check(ctx, s)
	if err != nil {
		return ProviderView{}, err
	}
	p, err := pv.cfg.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	old := p
	s.applyTo(&p)
	origin, err := pv.seal.providerOrigin(p)
	if err != nil {
		return ProviderView{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if err := pv.seal.setHeaders(&p, old, s.CustomHeaders, origin, "custom_headers"); err != nil {
		return ProviderView{}, err
	}
	err = pv.seal.keepKeys(old, p.Keys, origin, func(savedFor string) error {
		return invalid("base_url", fmt.Sprintf(
			"the provider's keys were saved for %s and are never sent to %s: create a new provider there, or delete the keys first", savedFor, origin))
	})
	if err != nil {
		return ProviderView{}, err
	}
	return pv.put(ctx, p)
}

// Delete removes a provider and its keys; refused while a model
// uses it.
func (pv *Providers) Delete(ctx context.Context, id string) error {
	uses, err := pv.cfg.modelsByProvider(ctx)
	if err != nil {
		return err
	}
	if ids := uses[id]; len(ids) > 0 {
		return invalid("id", fmt.Sprintf("models %s use this provider: point them at another provider or delete them first", strings.Join(ids, ", ")))
	}
	err = pv.o.Providers.DeleteProvider(ctx, id)
	if errors.Is(err, ports.ErrConflict) {
		return invalid("id", "a model uses this provider: point it at another provider or delete it first")
	}
	if err != nil {
		return fmt.Errorf("delete provider %s: %w", id, err)
	}
	return nil
}

// AddKey adds a key to a provider's pool, sealed and bound to the
// provider's origin.
func (pv *Providers) AddKey(ctx context.Context, id string, nk NewKey) (ProviderView, error) {
	p, err := pv.cfg.loadProvider(ctx, id)
	if err != nil {
		return ProviderView{}, err
	}
	if len(p.Keys) >= MaxKeysPerProvider {
		return ProviderView{}, invalid("api_key", fmt.Sprintf("at most %d keys per provider", MaxKeysPerProvider))
	}
	origin, err := pv.seal.providerOrigin(p)
	if err != nil {
		return ProviderView{}, err
	}
	pos := 0
	for _, k := range p.Keys {
		pos = max(pos, k.Position+1)
	}
	k, err := pv.newKey(nk, origin, pos)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys = append(p.Keys, k)
	return pv.put(ctx, p)
}

// UpdateKey changes a key's weight (0 keeps it) and, when key is
// not empty, rotates it: the new key takes the old one's place, enabled.
func (pv *Providers) UpdateKey(ctx context.Context, id, keyID, key string, weight int) (ProviderView, error) {
	p, i, err := pv.loadKey(ctx, id, keyID)
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
		origin, err := pv.seal.providerOrigin(p)
		if err != nil {
			return ProviderView{}, err
		}
		nk, err := pv.newKey(NewKey{Key: key, Weight: p.Keys[i].Weight}, origin, p.Keys[i].Position)
		if err != nil {
			return ProviderView{}, err
		}
		p.Keys[i].Sealed, p.Keys[i].Enabled, p.Keys[i].DisabledReason = nk.Sealed, true, ""
	}
	return pv.put(ctx, p)
}

// SetKeyEnabled takes a key out of the pool or puts it back.
func (pv *Providers) SetKeyEnabled(ctx context.Context, id, keyID string, enabled bool) (ProviderView, error) {
	p, i, err := pv.loadKey(ctx, id, keyID)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys[i].Enabled, p.Keys[i].DisabledReason = enabled, ""
	if !enabled {
		p.Keys[i].DisabledReason = "disabled by an administrator"
	}
	return pv.put(ctx, p)
}

// DeleteKey removes a key from a provider's pool.
func (pv *Providers) DeleteKey(ctx context.Context, id, keyID string) (ProviderView, error) {
	p, i, err := pv.loadKey(ctx, id, keyID)
	if err != nil {
		return ProviderView{}, err
	}
	p.Keys = slices.Delete(p.Keys, i, i+1)
	return pv.put(ctx, p)
}

// newKey checks and seals a key for origin.
func (pv *Providers) newKey(nk NewKey, origin string, position int) (ports.ProviderKey, error) {
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
	sealed, err := pv.seal.sealKey(key, origin)
	if err != nil {
		return ports.ProviderKey{}, err
	}
	return ports.ProviderKey{ID: pv.newID(), Position: position, Sealed: sealed, Weight: max(nk.Weight, 1), Enabled: true}, nil
}

// applyTo writes s into p but the headers, which setHeaders seals.
func (s ProviderSettings) applyTo(p *ports.Provider) {
	p.Name, p.Kind, p.BaseURL, p.UseFullURL = s.Name, s.ProviderKind, s.BaseURL, s.UseFullURL
	p.Region, p.KeyStrategy, p.CoolDown, p.Cloud = s.Region, s.KeyStrategy, s.CoolDown, s.Cloud
}

// loadKey loads a provider and finds one of its keys; an unknown key is
// ErrNotFound.
func (pv *Providers) loadKey(ctx context.Context, id, keyID string) (ports.Provider, int, error) {
	p, err := pv.cfg.loadProvider(ctx, id)
	if err != nil {
		return p, 0, err
	}
	i := slices.IndexFunc(p.Keys, func(k ports.ProviderKey) bool { return k.ID == keyID })
	if i < 0 {
		return p, 0, fmt.Errorf("key %s of provider %s: %w", keyID, id, ErrNotFound)
	}
	return p, i, nil
}

func (pv *Providers) put(ctx context.Context, p ports.Provider) (ProviderView, error) {
	if err := pv.o.Providers.PutProvider(ctx, p); err != nil {
		return ProviderView{}, fmt.Errorf("store provider %s: %w", p.ID, err)
	}
	return pv.Get(ctx, p.ID)
}

// view masks the keys and header values of p.
func (pv *Providers) view(p ports.Provider, models []string, health map[string]routing.Health) ProviderView {
	headers := pv.seal.headerViews(p)
	v := ProviderView{ID: p.ID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Models: models, Headers: headers,
		Settings: ProviderSettings{Name: p.Name, ProviderKind: p.Kind, BaseURL: p.BaseURL, UseFullURL: p.UseFullURL,
			CustomHeaders: headerNames(headers), Region: p.Region, KeyStrategy: p.KeyStrategy, CoolDown: p.CoolDown, Cloud: p.Cloud}}
	for _, k := range p.Keys {
		h := health[routing.KeySubject(k.ID)]
		v.Keys = append(v.Keys, ProviderKeyView{ID: k.ID, Hint: pv.seal.keyHint(p, k), Weight: k.Weight, Position: k.Position,
			Enabled: k.Enabled, DisabledReason: k.DisabledReason,
			DisabledByKeygate: !k.Enabled && strings.HasPrefix(k.DisabledReason, keyDisabledPrefix),
			Health:            h, Resting: h.Cooling(pv.now()), CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt})
	}
	return v
}
