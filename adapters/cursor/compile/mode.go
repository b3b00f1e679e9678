package compile

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Mode is the prompt and tool set a turn runs with.
type Mode string

// Modes with a prompt.
const (
	ModeAgent     Mode = "agent"
	ModeAsk       Mode = "ask"
	ModePlan      Mode = "plan"
	ModeDebug     Mode = "debug"
	ModeMultitask Mode = "multitask"
	ModeSubagent  Mode = "subagent"
)

// UnsupportedModeError is a Cursor mode Keygate has no prompt for.
type UnsupportedModeError struct{ Mode agentv1.AgentMode }

func (e *UnsupportedModeError) Error() string {
	return fmt.Sprintf("mode %s is not supported by Keygate", e.Mode)
}

// ModeOf picks the turn's mode: a subagent run is always a subagent; else
// the user message's mode, else the conversation's last mode, else agent.
func ModeOf(msg, conversation agentv1.AgentMode, subagentType string) (Mode, error) {
	if subagentType != "" {
		return ModeSubagent, nil
	}
	m := msg
	if m == agentv1.AgentMode_AGENT_MODE_UNSPECIFIED {
		m = conversation
	}
	switch m {
	case agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, agentv1.AgentMode_AGENT_MODE_AGENT:
		return ModeAgent, nil
	case agentv1.AgentMode_AGENT_MODE_ASK:
		return ModeAsk, nil
	case agentv1.AgentMode_AGENT_MODE_PLAN:
		return ModePlan, nil
	case agentv1.AgentMode_AGENT_MODE_DEBUG:
		return ModeDebug, nil
	case agentv1.AgentMode_AGENT_MODE_MULTITASK:
		return ModeMultitask, nil
	}
	return "", &UnsupportedModeError{Mode: m}
}

// Wire returns the Cursor mode for a checkpoint's mode field.
func (m Mode) Wire() agentv1.AgentMode {
	switch m {
	case ModeAsk:
		return agentv1.AgentMode_AGENT_MODE_ASK
	case ModePlan:
		return agentv1.AgentMode_AGENT_MODE_PLAN
	case ModeDebug:
		return agentv1.AgentMode_AGENT_MODE_DEBUG
	case ModeMultitask:
		return agentv1.AgentMode_AGENT_MODE_MULTITASK
	}
	return agentv1.AgentMode_AGENT_MODE_AGENT
}

// ModeNamed returns the mode a mode id names ("agent", "ask", "plan",
// "debug", "multitask"), as SwitchMode's target_mode_id does.
func ModeNamed(id string) (Mode, bool) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(id))); m {
	case ModeAgent, ModeAsk, ModePlan, ModeDebug, ModeMultitask:
		return m, true
	}
	return "", false
}
