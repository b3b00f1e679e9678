package control

import (
	"encoding/json"
	"strings"

	"keygate/domain/llm"
	"keygate/ports"
)

// ModelSettings are the editable fields of a model configuration.
type ModelSettings struct {
	DisplayName string
	GroupName   string
	// ProviderID names the provider the model is called at. Empty means
	// the connection fields below (ProviderKind, BaseURL, UseFullURL,
	// CustomHeaders) describe it, as a model was saved before providers
	// were objects of their own: Create and Update then keep a provider in
	// step with them. With ProviderID set those fields are ignored on
	// writes and show the provider's on reads.
	ProviderID          string
	ProviderKind        llm.ProviderKind
	BaseURL             string
	UseFullURL          bool
	ModelID             string
	Tooltip             string
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	ExtraParams         json.RawMessage
	// CustomHeaders name every header sent to the provider; an empty value
	// keeps the stored one on a write, and every value is empty on a read.
	CustomHeaders  map[string]string
	SupportsImages bool
	SupportsTools  bool
	// RequestsPerMinute and TokensPerMinute limit the model as a route's
	// target, over every replica; 0 is no limit.
	RequestsPerMinute int64
	TokensPerMinute   int64
}

// Model is a stored configuration as the console may see it: the key is
// never part of it, only whether its provider has one and a masked hint.
type Model struct {
	Config   ports.ModelConfig
	Settings ModelSettings
	// ProviderName names the provider for people; empty when the model's
	// provider is missing.
	ProviderName string
	HasAPIKey    bool
	KeyHint      string
	// Headers are the provider's custom headers, names and masked hints;
	// Settings.CustomHeaders names them with empty values.
	Headers []HeaderView
}

var efforts = map[string]bool{"": true, "low": true, "medium": true, "high": true, "xhigh": true, "max": true}

// normalize trims s and checks every rule of a model configuration but the
// protocol kind, which Models.checkKind asks the registered protocols
// about. It changes nothing stored, so a refused save leaves nothing
// half-saved.
func (s ModelSettings) normalize() (ModelSettings, error) {
	s.DisplayName = strings.TrimSpace(s.DisplayName)
	s.GroupName = strings.TrimSpace(s.GroupName)
	s.ProviderID = strings.TrimSpace(s.ProviderID)
	s.BaseURL = strings.TrimSpace(s.BaseURL)
	s.ModelID = strings.TrimSpace(s.ModelID)
	s.ReasoningEffort = strings.TrimSpace(s.ReasoningEffort)
	if s.ProviderID != "" {
		if err := checkLen("provider_id", s.ProviderID, MaxFilterID); err != nil {
			return s, err
		}
	} else if err := checkBaseURL(s.BaseURL); err != nil {
		return s, err
	}
	if s.ModelID == "" {
		return s, invalid("model_id", "name the upstream model (discovery lists them)")
	}
	for _, c := range []struct {
		field, v string
		limit    int
	}{{"model_id", s.ModelID, MaxModelID}, {"display_name", s.DisplayName, MaxDisplayName},
		{"group_name", s.GroupName, MaxGroupName}} {
		if err := checkText(c.field, c.v, c.limit); err != nil {
			return s, err
		}
	}
	if err := checkLen("tooltip", s.Tooltip, MaxTooltip); err != nil {
		return s, err
	}
	if s.DisplayName == "" {
		s.DisplayName = s.ModelID
	}
	if !efforts[s.ReasoningEffort] {
		return s, invalid("reasoning_effort", "use low, medium, high, xhigh, max or leave it empty")
	}
	if s.ContextWindowTokens < 0 || s.MaxOutputTokens < 0 {
		return s, invalid("tokens", "token limits must be positive or 0 for the default")
	}
	if s.RequestsPerMinute < 0 || s.TokensPerMinute < 0 {
		return s, invalid("limits", "per-minute limits must be positive or 0 for none")
	}
	if len(s.ExtraParams) > MaxExtraParams {
		return s, tooLong("extra_params_json", MaxExtraParams)
	}
	if len(s.ExtraParams) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(s.ExtraParams, &obj) != nil || obj == nil {
			return s, invalid("extra_params_json", "must be a JSON object such as {\"temperature\": 0.2}")
		}
	}
	if s.ProviderID == "" {
		if err := checkHeaders("custom_headers", s.CustomHeaders); err != nil {
			return s, err
		}
	}
	return s, nil
}

// apply writes the model's own fields of s into cfg; the connection
// fields belong to the provider.
func (s ModelSettings) apply(cfg *ports.ModelConfig) {
	cfg.DisplayName, cfg.GroupName = s.DisplayName, s.GroupName
	cfg.ModelID, cfg.Tooltip, cfg.ReasoningEffort = s.ModelID, s.Tooltip, s.ReasoningEffort
	cfg.ContextWindowTokens, cfg.MaxOutputTokens = s.ContextWindowTokens, s.MaxOutputTokens
	cfg.SupportsImages, cfg.SupportsTools = s.SupportsImages, s.SupportsTools
	cfg.RequestsPerMinute, cfg.TokensPerMinute = s.RequestsPerMinute, s.TokensPerMinute
	cfg.ExtraParams = nil
	if len(s.ExtraParams) > 0 {
		cfg.ExtraParams = append(json.RawMessage(nil), s.ExtraParams...)
	}
}

// settingsOf reads the editable fields back out of a stored configuration.
func settingsOf(cfg ports.ModelConfig) ModelSettings {
	return ModelSettings{DisplayName: cfg.DisplayName, GroupName: cfg.GroupName, ProviderID: cfg.ProviderID,
		ProviderKind: cfg.ProviderKind, BaseURL: cfg.BaseURL, UseFullURL: cfg.UseFullURL,
		ModelID: cfg.ModelID, Tooltip: cfg.Tooltip,
		ReasoningEffort: cfg.ReasoningEffort, ContextWindowTokens: cfg.ContextWindowTokens,
		MaxOutputTokens: cfg.MaxOutputTokens, ExtraParams: cfg.ExtraParams,
		SupportsImages: cfg.SupportsImages, SupportsTools: cfg.SupportsTools,
		RequestsPerMinute: cfg.RequestsPerMinute, TokensPerMinute: cfg.TokensPerMinute}
}

// joinWords joins words as "a, b or c" with the conjunction given.
func joinWords(words []string, conjunction string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}

// MaskKey shows a key's first three and last four characters; short keys
// show only their length class, so a hint never reveals most of a key.
func MaskKey(key string) string {
	switch {
	case key == "":
		return ""
	case len(key) < 12:
		return strings.Repeat("•", 6)
	default:
		return key[:3] + "…" + key[len(key)-4:]
	}
}
