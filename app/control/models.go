package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"keygate/domain/llm"
	"keygate/ports"
)

// ModelsOptions are the dependencies of [Models].
type ModelsOptions struct {
	Store   ports.ModelConfigStore
	Secrets ports.SecretBox
	Lister  ports.ModelLister
	// Provider runs connection tests; its call records appear in Calls.
	Provider ports.ModelProvider
	// Protocols are the provider protocols a model may use; they derive
	// each model's request URL.
	Protocols ports.ProviderProtocols
	// NewID makes model ids; nil uses 8 random bytes in hex.
	NewID func() string
	// Now is the clock of connection tests; nil uses time.Now.
	Now func() time.Time
	// TestTimeout bounds a connection test; 0 means 45 seconds.
	TestTimeout time.Duration
	// CheckURL decides whether Keygate may send requests to a base URL
	// (the outbound policy: no private, loopback or link-local address
	// unless allowed). It is asked on Create, Update and Discover; its
	// error text is shown as the base_url field's message. nil allows
	// every URL.
	CheckURL func(ctx context.Context, rawURL string) error
	// Audit records each use of a stored key by an administrator's action
	// (a discovery with the stored key, a connection test) before the key
	// is sent; a failure to record refuses the action. nil records nothing.
	Audit UseAuditor
}

// UseAuditor records accountable actions that change nothing stored.
type UseAuditor interface {
	// AuditUse records that the principal on ctx did action ("noun.verb")
	// to target; detail is marshalled to JSON with its secrets masked.
	AuditUse(ctx context.Context, action, target string, detail any) error
}

// KeyUse is what the audit log keeps of one use of a stored key.
type KeyUse struct {
	// URL is where the key was sent (discovery: the base URL asked).
	URL string `json:"url"`
	// KeyHint is the key masked by MaskKey.
	KeyHint string `json:"keyHint"`
}

// Models manages model configurations. It is safe for concurrent use;
// concurrent edits of the same model are last-writer-wins.
type Models struct {
	o ModelsOptions
}

// NewModels returns the model use cases.
func NewModels(o ModelsOptions) *Models {
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TestTimeout == 0 {
		o.TestTimeout = 45 * time.Second
	}
	return &Models{o: o}
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// List returns every model in publishing order.
func (m *Models) List(ctx context.Context) ([]Model, error) {
	cfgs, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]Model, 0, len(cfgs))
	for _, c := range cfgs {
		out = append(out, m.view(c))
	}
	return out, nil
}

// Get returns one model, or ErrNotFound.
func (m *Models) Get(ctx context.Context, id string) (Model, error) {
	c, err := m.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	return m.view(c), nil
}

// Create validates s, seals apiKey and stores a model after the last one.
func (m *Models) Create(ctx context.Context, s ModelSettings, apiKey string, enabled bool) (Model, error) {
	s, err := m.checkSettings(ctx, s)
	if err != nil {
		return Model{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return Model{}, invalid("api_key", "paste the provider's API key; it is stored encrypted and never shown again")
	}
	if err := checkAPIKey("api_key", apiKey); err != nil {
		return Model{}, err
	}
	all, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return Model{}, fmt.Errorf("create model: %w", err)
	}
	cfg := ports.ModelConfig{ID: m.o.NewID(), Enabled: enabled, SortOrder: nextOrder(all)}
	if err := s.apply(&cfg); err != nil {
		return Model{}, err
	}
	origin, err := m.requestOrigin(cfg)
	if err != nil {
		return Model{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if cfg.SealedAPIKey, err = m.sealKey(apiKey, origin); err != nil {
		return Model{}, err
	}
	return m.put(ctx, cfg)
}

// Protocols lists the provider protocols a model may use, in the order to
// offer them.
func (m *Models) Protocols() []ports.ProviderProtocol { return m.o.Protocols.Protocols() }

// checkKind refuses a protocol kind that is not registered, naming those
// that are.
func (m *Models) checkKind(kind llm.ProviderKind) error {
	ps := m.o.Protocols.Protocols()
	names := make([]string, len(ps))
	for i, p := range ps {
		if p.Kind == kind {
			return nil
		}
		names[i] = p.Name
	}
	return invalid("provider_kind", "choose "+joinWords(names, "or"))
}

// checkSettings normalizes s and asks CheckURL about its base URL.
func (m *Models) checkSettings(ctx context.Context, s ModelSettings) (ModelSettings, error) {
	if err := m.checkKind(s.ProviderKind); err != nil {
		return s, err
	}
	s, err := s.normalize()
	if err != nil {
		return s, err
	}
	return s, m.checkURL(ctx, s.BaseURL)
}

func (m *Models) checkURL(ctx context.Context, raw string) error {
	if m.o.CheckURL == nil {
		return nil
	}
	if err := m.o.CheckURL(ctx, raw); err != nil {
		return invalid("base_url", err.Error())
	}
	return nil
}

// Update replaces the editable fields of a model; an empty apiKey keeps the
// stored key, which is refused when the model would then send it to
// another origin than the one it was saved for.
func (m *Models) Update(ctx context.Context, id string, s ModelSettings, apiKey string) (Model, error) {
	s, err := m.checkSettings(ctx, s)
	if err != nil {
		return Model{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if err := checkAPIKey("api_key", apiKey); err != nil {
		return Model{}, err
	}
	cfg, err := m.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	// The origin the stored key is bound to, before s changes the row. A
	// key stored before binding, or one that cannot be opened now, counts
	// as bound to the row's current origin.
	var kept storedKey
	if apiKey == "" && len(cfg.SealedAPIKey) > 0 {
		if kept, err = m.openKey(cfg); err != nil {
			if kept.origin, err = m.requestOrigin(cfg); err != nil {
				return Model{}, err
			}
		}
	}
	if err := s.apply(&cfg); err != nil {
		return Model{}, err
	}
	origin, err := m.requestOrigin(cfg)
	if err != nil {
		return Model{}, invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	switch {
	case apiKey != "":
		if cfg.SealedAPIKey, err = m.sealKey(apiKey, origin); err != nil {
			return Model{}, err
		}
	case kept.origin != "" && kept.origin != origin:
		return Model{}, invalid("api_key", fmt.Sprintf("enter the API key again: it was saved for %s and would be sent to %s", kept.origin, origin))
	case kept.legacy:
		// Bind it now that the origin is known to be unchanged.
		if cfg.SealedAPIKey, err = m.sealKey(kept.key, origin); err != nil {
			return Model{}, err
		}
	}
	return m.put(ctx, cfg)
}

// SetEnabled publishes a model to Cursor or hides it.
func (m *Models) SetEnabled(ctx context.Context, id string, enabled bool) (Model, error) {
	cfg, err := m.load(ctx, id)
	if err != nil {
		return Model{}, err
	}
	cfg.Enabled = enabled
	return m.put(ctx, cfg)
}

// Delete removes a model, or returns ErrNotFound.
func (m *Models) Delete(ctx context.Context, id string) error {
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

// Duplicate copies a model, key included (still bound to the origin it
// was saved for), and places the copy right after the original. The copy
// starts disabled so Cursor does not show two identical entries.
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
	cp.ID, cp.Enabled = m.o.NewID(), false
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
	stored, err := m.load(ctx, cfg.ID)
	if err != nil {
		return Model{}, err
	}
	return m.view(stored), nil
}

func (m *Models) load(ctx context.Context, id string) (ports.ModelConfig, error) {
	c, err := m.o.Store.ModelConfig(ctx, id)
	if err != nil {
		return ports.ModelConfig{}, fmt.Errorf("load model %s: %w", id, err)
	}
	return c, nil
}

// view hides the key: only whether one is stored and a masked hint leave.
func (m *Models) view(c ports.ModelConfig) Model {
	v := Model{Settings: settingsOf(c), HasAPIKey: len(c.SealedAPIKey) > 0}
	if v.HasAPIKey {
		if k, err := m.openKey(c); err == nil {
			v.KeyHint = MaskKey(k.key)
		} else {
			v.KeyHint = "(cannot be decrypted: enter the key again)"
		}
	}
	c.SealedAPIKey = nil
	v.Config = c
	return v
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
