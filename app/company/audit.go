package company

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"keygate/domain/access"
	"keygate/domain/audit"
	"keygate/domain/llm"
	"keygate/ports"
)

// Auditor records administrator actions with secrets masked and shows
// them to administrators.
type Auditor struct {
	log   ports.AuditLog
	clock ports.Clock
}

// NewAuditor returns the audit use case.
func NewAuditor(log ports.AuditLog, clock ports.Clock) *Auditor {
	return &Auditor{log: log, clock: clock}
}

// Record stores that caller did action (as "noun.verb") to target.
// before and after are the object's states, marshalled to JSON and masked
// with audit.Mask (nil: the object did not exist). A ports.ModelConfig or
// ports.Provider can be passed as it is: it is recorded with the control
// API's JSON names (see modelView, providerView) and a sealed key is masked
// like any key.
func (a *Auditor) Record(ctx context.Context, caller access.Principal, action, target string, before, after any) error {
	b, err := marshal(before)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	af, err := marshal(after)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	mb, ma, err := audit.Mask(b, af)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	_, err = a.log.AppendAudit(ctx, audit.Entry{
		At: a.clock.Now(), Actor: caller.Identity, Role: string(caller.Role),
		Action: action, Target: target, Before: mb, After: ma,
	})
	return err
}

// AuditUse records that the principal on ctx (see adapters/auth), or
// System, did action to target without changing it, such as sending a
// stored provider key: detail is the entry's after state, masked like any
// other (before is empty).
func (a *Auditor) AuditUse(ctx context.Context, action, target string, detail any) error {
	return a.Record(ctx, actor(ctx), action, target, nil, detail)
}

// Entries returns audit entries to an administrator (access.ErrDenied for
// anyone else).
func (a *Auditor) Entries(ctx context.Context, caller access.Principal, q ports.AuditQuery) ([]audit.Entry, error) {
	if err := caller.RequireAdmin(); err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	return a.log.AuditEntries(ctx, q)
}

func marshal(v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case ports.ModelConfig:
		v = newModelView(t)
	case ports.Provider:
		v = newProviderView(t)
	case ports.Alias:
		v = newAliasView(t)
	}
	return json.Marshal(v)
}

// modelView is what the audit log keeps of a model configuration: the
// fields under the names the control API's JSON gives them (proto JSON,
// lowerCamel, as in keygate.control.v1.Model and ModelSettings), flat, so
// that the console lists each changed field on its own. Extra params stay
// a JSON object (the API carries them as a string), so that a secret
// inside them is masked. The connection (URL, headers, keys) belongs to
// the provider and is audited with it.
type modelView struct {
	ID                  string          `json:"id"`
	SortOrder           int             `json:"sortOrder"`
	Enabled             bool            `json:"enabled"`
	DisplayName         string          `json:"displayName"`
	GroupName           string          `json:"groupName"`
	ProviderID          string          `json:"providerId"`
	ModelID             string          `json:"modelId"`
	Tooltip             string          `json:"tooltip"`
	ReasoningEffort     string          `json:"reasoningEffort"`
	ContextWindowTokens int64           `json:"contextWindowTokens"`
	MaxOutputTokens     int64           `json:"maxOutputTokens"`
	ExtraParams         json.RawMessage `json:"extraParams"`
	SupportsImages      bool            `json:"supportsImages"`
	SupportsTools       bool            `json:"supportsTools"`
	RequestsPerMinute   int64           `json:"requestsPerMinute"`
	TokensPerMinute     int64           `json:"tokensPerMinute"`
	CreateTime          time.Time       `json:"createTime"`
	UpdateTime          time.Time       `json:"updateTime"`
}

func newModelView(c ports.ModelConfig) modelView {
	return modelView{
		ID: c.ID, SortOrder: c.SortOrder, Enabled: c.Enabled, DisplayName: c.DisplayName, GroupName: c.GroupName,
		ProviderID: c.ProviderID, ModelID: c.ModelID, Tooltip: c.Tooltip, ReasoningEffort: c.ReasoningEffort,
		ContextWindowTokens: c.ContextWindowTokens, MaxOutputTokens: c.MaxOutputTokens,
		ExtraParams: c.ExtraParams, SupportsImages: c.SupportsImages, SupportsTools: c.SupportsTools,
		RequestsPerMinute: c.RequestsPerMinute, TokensPerMinute: c.TokensPerMinute,
		CreateTime: c.CreatedAt, UpdateTime: c.UpdatedAt,
	}
}

// providerView is what the audit log keeps of a provider, like modelView:
// each sealed key is apiKey, which audit.Mask replaces by [set] or
// [changed], and so are the sealed custom headers (headersSecret) and any
// headers an earlier Keygate stored in clear (clearHeadersSecret).
type providerView struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	ProviderKind  llm.ProviderKind  `json:"providerKind"`
	BaseURL       string            `json:"baseUrl"`
	UseFullURL    bool              `json:"useFullUrl"`
	SealedHeaders []byte            `json:"headersSecret"`
	ClearHeaders  json.RawMessage   `json:"clearHeadersSecret"`
	Region        string            `json:"region"`
	KeyStrategy   string            `json:"keyStrategy"`
	CoolDownMS    int64             `json:"coolDownMs"`
	Keys          []providerKeyView `json:"keys"`
	CreateTime    time.Time         `json:"createTime"`
	UpdateTime    time.Time         `json:"updateTime"`
}

type providerKeyView struct {
	ID             string `json:"id"`
	APIKey         []byte `json:"apiKey"`
	Weight         int    `json:"weight"`
	Enabled        bool   `json:"enabled"`
	DisabledReason string `json:"disabledReason"`
}

func newProviderView(p ports.Provider) providerView {
	v := providerView{ID: p.ID, Name: p.Name, ProviderKind: p.Kind, BaseURL: p.BaseURL, UseFullURL: p.UseFullURL,
		SealedHeaders: p.SealedHeaders, ClearHeaders: p.ClearHeaders, Region: p.Region, CoolDownMS: p.CoolDown.Milliseconds(),
		Keys: []providerKeyView{}, CreateTime: p.CreatedAt, UpdateTime: p.UpdatedAt}
	if p.KeyStrategy != 0 {
		v.KeyStrategy = p.KeyStrategy.String()
	}
	for _, k := range p.Keys {
		v.Keys = append(v.Keys, providerKeyView{ID: k.ID, APIKey: k.Sealed, Weight: k.Weight, Enabled: k.Enabled,
			DisabledReason: k.DisabledReason})
	}
	return v
}

// aliasView is what the audit log keeps of an alias, like modelView.
type aliasView struct {
	ID                  string            `json:"id"`
	SortOrder           int               `json:"sortOrder"`
	Enabled             bool              `json:"enabled"`
	DisplayName         string            `json:"displayName"`
	GroupName           string            `json:"groupName"`
	Tooltip             string            `json:"tooltip"`
	Strategy            string            `json:"strategy"`
	FirstTokenTimeoutMS int64             `json:"firstTokenTimeoutMs"`
	Targets             []aliasTargetView `json:"targets"`
}

type aliasTargetView struct {
	ModelID string `json:"modelId"`
	Weight  int    `json:"weight"`
	Drained bool   `json:"drained"`
}

func newAliasView(a ports.Alias) aliasView {
	v := aliasView{ID: a.ID, SortOrder: a.SortOrder, Enabled: a.Enabled, DisplayName: a.DisplayName, GroupName: a.GroupName,
		Tooltip: a.Tooltip, FirstTokenTimeoutMS: a.FirstTokenTimeout.Milliseconds(), Targets: []aliasTargetView{}}
	if a.Strategy != 0 {
		v.Strategy = a.Strategy.String()
	}
	for _, t := range a.Targets {
		v.Targets = append(v.Targets, aliasTargetView{ModelID: t.ModelID, Weight: t.Weight, Drained: t.Drained})
	}
	return v
}
