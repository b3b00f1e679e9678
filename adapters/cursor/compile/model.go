package compile

import (
	"strconv"
	"strings"

	"keygate/app/run"
	"keygate/domain/llm"
	"keygate/domain/projection"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// Model builds the run's model from its configuration and the picker's
// parameters: "reasoning" overrides the configured effort, "fast" asks for
// the fast service tier, "context" ("200k", "1m") narrows the window used
// for automatic compaction.
func Model(ep ports.Endpoint, cfg ports.ModelConfig, rm *agentv1.RequestedModel) run.Model {
	s := projection.Settings{Model: cfg.ModelID, MaxOutputTokens: int(cfg.MaxOutputTokens)}
	effort := cfg.ReasoningEffort
	window := cfg.ContextWindowTokens
	for _, p := range rm.GetParameters() {
		switch p.GetId() {
		case "reasoning":
			effort = p.GetValue()
		case "fast":
			if p.GetValue() == "true" {
				s.ServiceTier = "fast"
			}
		case "context":
			if n := parseTokens(p.GetValue()); n > 0 && (window == 0 || n < window) {
				window = n
			}
		}
	}
	if effort != "" && effort != "none" {
		s.Reasoning = llm.Reasoning{Enabled: true, Effort: effort}
	}
	return run.Model{Endpoint: ep, Settings: s, ContextWindow: window}
}

// parseTokens reads "200k", "1m" or a plain number; 0 when unreadable.
func parseTokens(v string) int64 {
	v = strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1000, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "m"):
		mult, v = 1000000, strings.TrimSuffix(v, "m")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n * mult
}
