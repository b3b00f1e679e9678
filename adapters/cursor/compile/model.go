package compile

import (
	"keygate/adapters/cursor/picker"
	"keygate/app/run"
	"keygate/domain/llm"
	"keygate/domain/projection"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// Model builds the run's model from its configuration and the values the
// client chose in the picker (package picker): the reasoning effort, the
// fast tier, the context size (or Max mode's long context). The window
// automatic compaction works with is the configured one, else the model
// family's default.
func Model(ep ports.Endpoint, cfg ports.ModelConfig, rm *agentv1.RequestedModel) run.Model {
	o := picker.For(cfg)
	c := o.Choose(rm)
	s := projection.Settings{Model: cfg.ModelID, MaxOutputTokens: int(cfg.MaxOutputTokens), Reasoning: o.Reasoning(c.Effort)}
	if c.Fast {
		s.ServiceTier = llm.ServiceTierFast
	}
	return run.Model{Endpoint: ep, Settings: s, ContextWindow: c.Window}
}
