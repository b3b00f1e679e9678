package control

import (
	"encoding/json"
	"strings"

	"keygate/domain/llm"
	"keygate/ports"
)

// ModelSettings are the editable fields of a model configuration.
type ModelSettings struct {
	DisplayName         string
	GroupName           string
	ProviderKind        llm.ProviderKind
	BaseURL             string
	UseFullURL          bool
	ModelID             string
	Tooltip             string
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	ExtraParams         json.RawMessage
	CustomHeaders       map[string]string
	SupportsImages      bool
	SupportsTools       bool
}

// Model is a stored configuration as the console may see it: the key is
// never part of it, only whether there is one and a masked hint.
type Model struct {
	Config    ports.ModelConfig
	Settings  ModelSettings
	HasAPIKey bool
	KeyHint   string
}

var efforts = map[string]bool{"": true, "low": true, "medium": true, "high": true, "xhigh": true, "max": true}

// normalize trims s and checks every rule of a model configuration but the
// protocol kind, which Models.checkKind asks the registered protocols
// about. It changes nothing stored, so a refused save leaves nothing
// half-saved.
func (s ModelSettings) normalize() (ModelSettings, error) {
	s.DisplayName = strings.TrimSpace(s.DisplayName)
	s.GroupName = strings.TrimSpace(s.GroupName)
	s.BaseURL = strings.TrimSpace(s.BaseURL)
	s.ModelID = strings.TrimSpace(s.ModelID)
	s.ReasoningEffort = strings.TrimSpace(s.ReasoningEffort)
	if err := checkBaseURL(s.BaseURL); err != nil {
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
	if len(s.ExtraParams) > MaxExtraParams {
		return s, tooLong("extra_params_json", MaxExtraParams)
	}
	if len(s.ExtraParams) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(s.ExtraParams, &obj) != nil || obj == nil {
			return s, invalid("extra_params_json", "must be a JSON object such as {\"temperature\": 0.2}")
		}
	}
	if err := checkHeaders("custom_headers", s.CustomHeaders); err != nil {
		return s, err
	}
	return s, nil
}

// apply writes s into cfg.
func (s ModelSettings) apply(cfg *ports.ModelConfig) error {
	cfg.DisplayName, cfg.GroupName = s.DisplayName, s.GroupName
	cfg.ProviderKind, cfg.BaseURL, cfg.UseFullURL = s.ProviderKind, s.BaseURL, s.UseFullURL
	cfg.ModelID, cfg.Tooltip, cfg.ReasoningEffort = s.ModelID, s.Tooltip, s.ReasoningEffort
	cfg.ContextWindowTokens, cfg.MaxOutputTokens = s.ContextWindowTokens, s.MaxOutputTokens
	cfg.SupportsImages, cfg.SupportsTools = s.SupportsImages, s.SupportsTools
	cfg.ExtraParams = nil
	if len(s.ExtraParams) > 0 {
		cfg.ExtraParams = append(json.RawMessage(nil), s.ExtraParams...)
	}
	cfg.CustomHeaders = nil
	if len(s.CustomHeaders) > 0 {
		b, err := json.Marshal(s.CustomHeaders)
		if err != nil {
			return invalid("custom_headers", err.Error())
		}
		cfg.CustomHeaders = b
	}
	return nil
}

// settingsOf reads the editable fields back out of a stored configuration.
func settingsOf(cfg ports.ModelConfig) ModelSettings {
	s := ModelSettings{DisplayName: cfg.DisplayName, GroupName: cfg.GroupName, ProviderKind: cfg.ProviderKind,
		BaseURL: cfg.BaseURL, UseFullURL: cfg.UseFullURL, ModelID: cfg.ModelID, Tooltip: cfg.Tooltip,
		ReasoningEffort: cfg.ReasoningEffort, ContextWindowTokens: cfg.ContextWindowTokens,
		MaxOutputTokens: cfg.MaxOutputTokens, ExtraParams: cfg.ExtraParams,
		SupportsImages: cfg.SupportsImages, SupportsTools: cfg.SupportsTools}
	if len(cfg.CustomHeaders) > 0 {
		_ = json.Unmarshal(cfg.CustomHeaders, &s.CustomHeaders)
	}
	return s
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
