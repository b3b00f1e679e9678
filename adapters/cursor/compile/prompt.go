package compile

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	"keygate/domain/projection"
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

// Prompt returns the system instructions and tools of mode. modelName
// fills {{MODEL_NAME}}; mcp are the client's direct MCP tools, appended
// after the mode's tools, sorted by name; web says which of WebSearch and
// WebFetch to offer.
func Prompt(mode Mode, modelName string, mcp []*agentv1.McpToolDefinition, web tools.WebAccess) (projection.Prompt, error) {
	if modelName == "" {
		modelName = "an AI model"
	}
	text := strings.TrimSpace(asset("base")) + "\n\n" + strings.TrimSpace(asset(string(mode)))
	text = strings.ReplaceAll(text, "{{MODEL_NAME}}", modelName)
	extra := make([]llm.Tool, 0, len(mcp))
	for _, d := range mcp {
		extra = append(extra, llm.Tool{Name: d.GetName(), Description: d.GetDescription(), Parameters: mcpSchema(d)})
	}
	ts, err := tools.ForMode(string(mode), extra, web)
	if err != nil {
		return projection.Prompt{}, fmt.Errorf("prompt of mode %s: %w", mode, err)
	}
	return projection.Prompt{Instructions: text, Tools: ts}, nil
}

// CompactionPrompt is the instructions of a summary call.
func CompactionPrompt() projection.Prompt {
	return projection.Prompt{Instructions: strings.TrimSpace(asset("compaction"))}
}

func mcpSchema(d *agentv1.McpToolDefinition) []byte {
	if s := d.GetInputSchemaJson(); s != "" && json.Valid([]byte(s)) {
		return []byte(s)
	}
	if d.GetInputSchema() != nil {
		if b, err := protojson.Marshal(d.GetInputSchema()); err == nil {
			return b
		}
	}
	return []byte(`{"type":"object"}`)
}

// Runtime renders the user's text into the mode's runtime template.
func Runtime(mode Mode, text string) string {
	tmpl := asset("runtime_" + string(mode))
	if tmpl == "" {
		tmpl = asset("runtime")
	}
	return strings.TrimSpace(strings.ReplaceAll(tmpl, "{{USER_QUERY}}", text))
}
