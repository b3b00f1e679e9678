package control

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"keygate/ports"
)

// DiscoverQuery names an endpoint to list models of. APIKey wins; without
// it the first enabled key of KeyFromProvider, else of KeyFromModel's
// provider, is used, so editing a model does not require pasting its key
// again, but only at the origin that key was saved for.
type DiscoverQuery struct {
	ports.ModelListQuery
	KeyFromModel    string
	KeyFromProvider string
}

// DiscoveryOptions are the dependencies of [Discovery].
type DiscoveryOptions struct {
	// Lister asks an upstream endpoint for its models.
	Lister ports.ModelLister
	// Models and Providers hold the stored keys a query may name.
	Models    ports.ModelConfigStore
	Providers ports.ProviderStore
	// Secrets opens the stored keys and headers.
	Secrets ports.SecretBox
	// Protocols are the registered protocols; they derive the origins.
	Protocols ports.ProviderProtocols
	// CheckURL is the outbound policy's verdict on the base URL asked
	// (see ModelsOptions.CheckURL); nil allows every URL.
	CheckURL func(ctx context.Context, rawURL string) error
	// Audit records each use of a stored key before it is sent; a failure
	// to record refuses the discovery. nil records nothing.
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

// Discovery lists the models an upstream endpoint offers, with a key
// pasted or one stored for that endpoint's origin. It is safe for
// concurrent use.
type Discovery struct {
	o        DiscoveryOptions
	checkURL urlCheck
	cfg      configs
	seal     sealing
}

// NewDiscovery returns the discovery use case.
func NewDiscovery(o DiscoveryOptions) *Discovery {
	return &Discovery{o: o, checkURL: o.CheckURL, cfg: configs{models: o.Models, providers: o.Providers},
		seal: sealing{secrets: o.Secrets, protocols: o.Protocols}}
}

// Discover lists the model ids an upstream endpoint offers.
func (d *Discovery) Discover(ctx context.Context, q DiscoverQuery) ([]string, error) {
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
	if err := checkKind(d.o.Protocols, q.Kind); err != nil {
		return nil, err
	}
	if !q.Cloud.IsZero() {
		var err error
		if q.Cloud, err = checkCloud(d.o.Protocols, q.Kind, q.Cloud); err != nil {
			return nil, err
		}
	}
	if err := checkLen("key_from_model_id", q.KeyFromModel, MaxFilterID); err != nil {
		return nil, err
	}
	if err := checkLen("key_from_provider_id", q.KeyFromProvider, MaxFilterID); err != nil {
		return nil, err
	}
	if err := d.checkURL.check(ctx, q.BaseURL); err != nil {
		return nil, err
	}
	if q.KeyFromModel != "" || q.KeyFromProvider != "" {
		if err := d.storedKeyFor(ctx, &q); err != nil {
			return nil, err
		}
	} else if needsStored(q.Headers) {
		return nil, invalid("custom_headers", "enter every header's value to discover models")
	}
	ids, err := d.o.Lister.ListModels(ctx, q.ModelListQuery)
	if err != nil {
		return nil, fmt.Errorf("discover models at %s: %w", q.BaseURL, err)
	}
	return ids, nil
}

// storedKeyFor fills an empty q.APIKey with the stored key q names, and
// the empty header values of q with the stored ones, refusing to send
// either anywhere but the origin it was saved for, and audits the key's
// use.
func (d *Discovery) storedKeyFor(ctx context.Context, q *DiscoverQuery) error {
	var p ports.Provider
	var err error
	target := q.KeyFromProvider
	if target != "" {
		p, err = d.o.Providers.Provider(ctx, target)
	} else {
		var cfg ports.ModelConfig
		if cfg, err = d.cfg.load(ctx, q.KeyFromModel); err != nil {
			return err
		}
		target = cfg.ID
		p, err = d.o.Providers.Provider(ctx, cfg.ProviderID)
	}
	if err != nil {
		return fmt.Errorf("load stored key: %w", err)
	}
	to, err := Origin(q.BaseURL)
	if err != nil {
		return invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if needsStored(q.Headers) {
		if q.Headers, err = d.seal.resolveHeaders(p, q.Headers, to, "custom_headers"); err != nil {
			return err
		}
	}
	if q.Cloud.IsZero() {
		q.Cloud = p.Cloud
	}
	if q.APIKey != "" || q.Cloud.Source.Keyless() {
		return nil
	}
	i := slices.IndexFunc(p.Keys, func(k ports.ProviderKey) bool { return k.Enabled })
	if i < 0 {
		return invalid("api_key", "no key is stored there; enter the API key to discover models")
	}
	k, err := d.seal.openKey(p, p.Keys[i])
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
	if err := auditKeyUse(ctx, d.o.Audit, action, target, q.BaseURL, k.key); err != nil {
		return err
	}
	q.APIKey = k.key
	return nil
}

// auditKeyUse records that an administrator's action sends a stored key
// of id (a model or a provider) to url.
func auditKeyUse(ctx context.Context, audit UseAuditor, action, id, url, key string) error {
	if audit == nil {
		return nil
	}
	if err := audit.AuditUse(ctx, action, id, KeyUse{URL: url, KeyHint: MaskKey(key)}); err != nil {
		return fmt.Errorf("audit %s of %s: %w", action, id, err)
	}
	return nil
}
