package compile

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"keygate/adapters/cursor/tools"
	"keygate/domain/projection"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

//go:embed prompts/*.md
var assets embed.FS

func asset(name string) string {
	b, err := assets.ReadFile("prompts/" + name + ".md")
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

// Prompt returns the system instructions and tools of mode; web says which
// of WebSearch and WebFetch to offer. The instructions depend on nothing
// else: not on the model (two Keygate models over one upstream model share
// the provider's cache) nor on the mode, whose paragraph travels in the
// request context's mode channel (ModeText), so that a mode switch changes
// only the tools the modes do not share.
func Prompt(mode Mode, web tools.WebAccess) (projection.Prompt, error) {
	ts, err := tools.ForMode(string(mode), web)
	if err != nil {
		return projection.Prompt{}, fmt.Errorf("prompt of mode %s: %w", mode, err)
	}
	return projection.Prompt{Instructions: strings.TrimSpace(asset("base")), Tools: ts, Name: string(mode),
		SharedTools: tools.SharedTools(string(mode), web)}, nil
}

// ModeText is the mode channel's text for mode: the paragraph that says
// what the mode allows.
func ModeText(mode Mode) string { return turn.ModeContext(asset(string(mode))) }

// CompactionPrompt is the instructions of a summary call.
func CompactionPrompt() projection.Prompt {
	return projection.Prompt{Instructions: strings.TrimSpace(asset("compaction"))}
}

// mcpSchema is the input schema of a client's MCP tool as JSON text.
func mcpSchema(d *agentv1.McpToolDefinition, schemas *Schemas) string {
	if s := d.GetInputSchemaJson(); s != "" && json.Valid([]byte(s)) {
		return s
	}
	if d.GetInputSchema() != nil {
		if s, err := schemas.json(d.GetInputSchema()); err == nil {
			return s
		}
	}
	return `{"type":"object"}`
}

// Runtime renders the user's text into the mode's runtime template.
func Runtime(mode Mode, text string) string {
	tmpl := asset("runtime_" + string(mode))
	if tmpl == "" {
		tmpl = asset("runtime")
	}
	return strings.TrimSpace(strings.ReplaceAll(tmpl, "{{USER_QUERY}}", text))
}
