package control

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"keygate/domain/routing"
	"keygate/ports"
)

// ModelsOptions are the dependencies of [Models].
type ModelsOptions struct {
	Store ports.ModelConfigStore
	// Providers holds the providers models are called at and their keys:
	// a model saved with a connection of its own keeps one in step.
	Providers ports.ProviderStore
	// Aliases holds the aliases over several models (a model an alias
	// routes to is not deleted); nil for none.
	Aliases ports.AliasStore
	// Secrets seals the keys and headers of a model's own provider.
	Secrets ports.SecretBox
	// Protocols are the provider protocols a model may use; they derive
	// each model's request URL.
	Protocols ports.ProviderProtocols
	// NewID makes model, provider and key ids; nil uses 8 random bytes in
	// hex.
	NewID func() string
	// CheckURL decides whether Keygate may send requests to a base URL
	// (the outbound policy: no private, loopback or link-local address
	// unless allowed). It is asked whenever a model is saved with a base
	// URL; its error text is shown as the base_url field's message. nil
	// allows every URL.
	CheckURL func(ctx context.Context, rawURL string) error
}

// Models manages model configurations. It is safe for concurrent use;
// concurrent edits of the same model are last-writer-wins.
type Models struct {
	o        ModelsOptions
	newID    func() string
	checkURL urlCheck
	cfg      configs
	seal     sealing
}

// NewModels returns the model use cases.
func NewModels(o ModelsOptions) *Models {
	return &Models{o: o, newID: orRandomID(o.NewID), checkURL: o.CheckURL,
		cfg:  configs{models: o.Store, providers: o.Providers},
		seal: sealing{secrets: o.Secrets, protocols: o.Protocols}}
}

// List returns every model in publishing order.
func (m *Models) List(ctx context.Context) ([]Model, error) {
	cfgs, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	provs, err := m.cfg.providersByID(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(cfgs))
	for _, c := range cfgs {
		out = append(out, m.view(c, provs[c.ProviderID]))
	}
	return out, nil
}

// Get returns one model, or ErrNotFound.
func (m *Models) Get(ctx context.Context, id string) (Model, error) {
	c, err := m.cfg.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	p, err := m.cfg.providerOf(ctx, c)
	if err != nil {
		return Model{}, err
	}
	return m.view(c, p), nil
}

// Create validates s and stores a model after the last one. With
// s.ProviderID the model is called at that provider and apiKey must be
// empty (keys belong to the provider); otherwise the connection fields of
// s and apiKey become a new provider of the model's own.
func (m *Models) Create(ctx context.Context, s ModelSettings, apiKey string, enabled bool) (Model, error) {
	s, err := m.checkSettings(ctx, s)
	if err != nil {
		return Model{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if err := checkAPIKey("api_key", apiKey); err != nil {
		return Model{}, err
	}
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return Model{}, fmt.Errorf("create model: %w", err)
	}
	cfg := ports.ModelConfig{ID: m.newID(), Enabled: enabled, SortOrder: nextOrder(all)}
	s.apply(&cfg)
	if s.ProviderID != "" {
		if apiKey != "" {
			return Model{}, errKeyOnProvider
		}
		if _, err := m.chosenProvider(ctx, s.ProviderID); err != nil {
			return Model{}, err
		}
		cfg.ProviderID = s.ProviderID
		return m.put(ctx, cfg)
	}
	if apiKey == "" {
		return Model{}, invalid("api_key", "paste the provider's API key; it is stored encrypted and never shown again")
	}
	p := ports.Provider{ID: m.newID()}
	if err := m.connect(&p, s, cfg.ModelID, apiKey); err != nil {
		return Model{}, err
	}
	if err := m.o.Providers.PutProvider(ctx, p); err != nil {
		return Model{}, fmt.Errorf("create provider of model %s: %w", cfg.ID, err)
	}
	cfg.ProviderID = p.ID
	return m.put(ctx, cfg)
}

// errKeyOnProvider refuses a key sent with a model that names a provider.
var errKeyOnProvider = invalid("api_key", "keys belong to the provider: add or rotate them on the Providers page, and leave this empty")

// chosenProvider loads the provider a model is pointed at; an unknown id
// is the field's error.
func (m *Models) chosenProvider(ctx context.Context, id string) (ports.Provider, error) {
	p, err := m.o.Providers.Provider(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return p, invalid("provider_id", "choose one of the configured providers; reload the page and try again")
	}
	if err != nil {
		return p, fmt.Errorf("load provider %s: %w", id, err)
	}
	return p, nil
}

// connect sets the connection fields of s on p (a model's own provider)
// and replaces its keys by apiKey sealed for the new origin, or, with no
// apiKey, keeps its keys where they were saved for that origin: a key is
// never carried to another origin.
func (m *Models) connect(p *ports.Provider, s ModelSettings, model, apiKey string) error {
	old := *p
	p.Kind, p.BaseURL, p.UseFullURL = s.ProviderKind, s.BaseURL, s.UseFullURL
	if p.Name == "" {
		p.Name = hostName(s.BaseURL)
	}
	if p.KeyStrategy == 0 {
		p.KeyStrategy = routing.KeysRoundRobin
	}
	origin, err := m.seal.originOf(p.Kind, p.BaseURL, model, p.UseFullURL)
	if err != nil {
		return invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if err := m.seal.setHeaders(p, old, s.CustomHeaders, origin, "custom_headers"); err != nil {
		return err
	}
	if apiKey != "" {
		sealed, err := m.seal.sealKey(apiKey, origin)
		if err != nil {
			return err
		}
		p.Keys = []ports.ProviderKey{{ID: m.newID(), Sealed: sealed, Weight: 1, Enabled: true}}
		return nil
	}
	if len(p.Keys) == 0 {
		return invalid("api_key", "paste the provider's API key; it is stored encrypted and never shown again")
	}
	return m.seal.keepKeys(old, p.Keys, origin, func(savedFor string) error {
		return invalid("api_key", fmt.Sprintf("enter the API key again: it was saved for %s and would be sent to %s", savedFor, origin))
	})
}

// hostName names a provider after the host of its base URL.
func hostName(base string) string {
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		return u.Host
	}
	return base
}

// Protocols lists the provider protocols a model may use, in the order to
// offer them.
func (m *Models) Protocols() []ports.ProviderProtocol { return m.o.Protocols.Protocols() }

// checkSettings normalizes s and, when s carries its own connection, asks
// about its protocol and CheckURL about its base URL.
func (m *Models) checkSettings(ctx context.Context, s ModelSettings) (ModelSettings, error) {
	if strings.TrimSpace(s.ProviderID) == "" {
		if err := checkKind(m.o.Protocols, s.ProviderKind); err != nil {
			return s, err
		}
	}
	s, err := s.normalize()
	if err != nil || s.ProviderID != "" {
		return s, err
	}
	return s, m.checkURL.check(ctx, s.BaseURL)
}

// Update replaces the editable fields of a model. With s.ProviderID the
// model moves to that provider (apiKey must be empty). Without it the
// connection fields of s apply to the model's provider: in place when no
// other model uses it, else on a copy of the model's own. An empty apiKey
// keeps the provider's keys, which is refused when they would then be sent
// to another origin than the one they were saved for.
func (m *Models) Update(ctx context.Context, id string, s ModelSettings, apiKey string) (Model, error) {
	s, err := m.checkSettings(ctx, s)
	if err != nil {
		return Model{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if err := checkAPIKey("api_key", apiKey); err != nil {
		return Model{}, err
	}
	cfg, err := m.cfg.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	s.apply(&cfg)
	if s.ProviderID != "" {
		if apiKey != "" {
			return Model{}, errKeyOnProvider
		}
		if s.ProviderID != cfg.ProviderID {
			if _, err := m.chosenProvider(ctx, s.ProviderID); err != nil {
				return Model{}, err
			}
		}
		cfg.ProviderID = s.ProviderID
		return m.put(ctx, cfg)
	}
	p, err := m.o.Providers.Provider(ctx, cfg.ProviderID)
	missing := errors.Is(err, ports.ErrNotFound)
	if err != nil && !missing {
		return Model{}, fmt.Errorf("load provider of model %s: %w", id, err)
	}
	if !missing && apiKey == "" && m.sameConnection(p, s) {
		return m.put(ctx, cfg)
	}
	shared := true
	if !missing {
		if shared, err = m.sharedProvider(ctx, p.ID, id); err != nil {
			return Model{}, err
		}
	}
	if missing {
		p = ports.Provider{ID: m.newID()}
	} else if shared {
		// A copy for this model alone: the other models keep theirs. The
		// copied keys stay sealed as they are, bound to their origin.
		cp := p
		cp.ID, cp.Name, cp.CreatedAt, cp.UpdatedAt = m.newID(), "", time.Time{}, time.Time{}
		cp.Keys = make([]ports.ProviderKey, len(p.Keys))
		for i, k := range p.Keys {
			k.ID, k.CreatedAt, k.UpdatedAt = m.newID(), time.Time{}, time.Time{}
			cp.Keys[i] = k
		}
		p = cp
	}
	if err := m.connect(&p, s, cfg.ModelID, apiKey); err != nil {
		return Model{}, err
	}
	if err := m.o.Providers.PutProvider(ctx, p); err != nil {
		return Model{}, fmt.Errorf("store provider of model %s: %w", id, err)
	}
	cfg.ProviderID = p.ID
	return m.put(ctx, cfg)
}

// sameConnection reports whether s describes p's connection as it is.
func (m *Models) sameConnection(p ports.Provider, s ModelSettings) bool {
	return p.Kind == s.ProviderKind && p.BaseURL == s.BaseURL && p.UseFullURL == s.UseFullURL &&
		m.seal.sameHeaders(p, s.CustomHeaders)
}

// sharedProvider reports whether a model other than modelID uses
// provider id.
func (m *Models) sharedProvider(ctx context.Context, id, modelID string) (bool, error) {
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return false, fmt.Errorf("find models of provider %s: %w", id, err)
	}
	for _, c := range all {
		if c.ProviderID == id && c.ID != modelID {
			return true, nil
		}
	}
	return false, nil
}

// SetEnabled publishes a model to Cursor or hides it.
func (m *Models) SetEnabled(ctx context.Context, id string, enabled bool) (Model, error) {
	cfg, err := m.cfg.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	cfg.Enabled = enabled
	return m.put(ctx, cfg)
}

// Delete removes a model, or returns ErrNotFound; refused while an alias
// routes to it. Its provider stays, with its keys, for other models and
// the Providers page.
func (m *Models) Delete(ctx context.Context, id string) error {
	used, err := m.aliasesUsing(ctx, id)
	if err != nil {
		return err
	}
	if len(used) > 0 {
		return invalid("id", fmt.Sprintf("the aliases %s route to this model: remove it from them first", strings.Join(used, ", ")))
	}
	if err := m.o.Store.DeleteModelConfig(ctx, id); err != nil {
		return fmt.Errorf("delete model %s: %w", id, err)
	}
	return nil
}

// Reorder sets the publishing order; ids must name every model exactly once.
func (m *Models) Reorder(ctx context.Context, ids []string) ([]Model, error) {
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("reorder models: %w", err)
	}
	byID := make(map[string]ports.ModelConfig, len(all))
	for _, c := range all {
		byID[c.ID] = c
	}
	if len(ids) != len(all) {
		return nil, invalid("ids", "list every model exactly once; reload the page and try again")
	}
	ordered := make([]ports.ModelConfig, 0, len(ids))
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			return nil, invalid("ids", "list every model exactly once; reload the page and try again")
		}
		delete(byID, id)
		ordered = append(ordered, c)
	}
	return m.renumber(ctx, ordered)
}

// Duplicate copies a model and places the copy right after the original.
// The copy is called at the same provider, with the same keys (still bound
// to the origin they were saved for). It starts disabled so Cursor does
// not show two identical entries.
func (m *Models) Duplicate(ctx context.Context, id string) (Model, error) {
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return Model{}, fmt.Errorf("duplicate model: %w", err)
	}
	at := -1
	for i, c := range all {
		if c.ID == id {
			at = i
		}
	}
	if at < 0 {
		return Model{}, fmt.Errorf("duplicate model %s: %w", id, ErrNotFound)
	}
	cp := all[at]
	cp.ID, cp.Enabled = m.newID(), false
	cp.DisplayName += " (copy)"
	cp.CreatedAt, cp.UpdatedAt = time.Time{}, time.Time{}
	ordered := append(append(append([]ports.ModelConfig(nil), all[:at+1]...), cp), all[at+1:]...)
	if _, err := m.renumber(ctx, ordered); err != nil {
		return Model{}, err
	}
	return m.Get(ctx, cp.ID)
}

func (m *Models) renumber(ctx context.Context, ordered []ports.ModelConfig) ([]Model, error) {
	out := make([]Model, 0, len(ordered))
	for i, c := range ordered {
		c.SortOrder = i
		v, err := m.put(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (m *Models) put(ctx context.Context, cfg ports.ModelConfig) (Model, error) {
	if err := m.o.Store.PutModelConfig(ctx, cfg); err != nil {
		return Model{}, fmt.Errorf("store model %s: %w", cfg.ID, err)
	}
	return m.Get(ctx, cfg.ID)
}

// view hides the keys and header values: only whether the provider has an
// enabled key, the first one's masked hint and the headers' names and
// hints leave.
func (m *Models) view(c ports.ModelConfig, p ports.Provider) Model {
	v := Model{Config: c, Settings: settingsOf(c), ProviderName: p.Name, Headers: m.seal.headerViews(p)}
	v.Settings.CustomHeaders = headerNames(v.Headers)
	for _, k := range p.Keys {
		if !k.Enabled {
			continue
		}
		v.HasAPIKey = true
		v.KeyHint = m.seal.keyHint(p, k)
		break
	}
	return v
}

// keyHint is a key masked by MaskKey, or why it cannot be shown.
func (s sealing) keyHint(p ports.Provider, k ports.ProviderKey) string {
	sk, err := s.openKey(p, k)
	if err != nil {
		return "(cannot be decrypted: enter the key again)"
	}
	return MaskKey(sk.key)
}

// aliasesUsing lists the aliases that have modelID as a target.
func (m *Models) aliasesUsing(ctx context.Context, modelID string) ([]string, error) {
	if m.o.Aliases == nil {
		return nil, nil
	}
	all, err := m.o.Aliases.Aliases(ctx)
	if err != nil {
		return nil, fmt.Errorf("list aliases: %w", err)
	}
	var out []string
	for _, a := range all {
		if slices.ContainsFunc(a.Targets, func(t ports.AliasTarget) bool { return t.ModelID == modelID }) {
			out = append(out, a.DisplayName)
		}
	}
	return out, nil
}

func nextOrder(all []ports.ModelConfig) int {
	n := 0
	for _, c := range all {
		if c.SortOrder >= n {
			n = c.SortOrder + 1
		}
	}
	return n
}
