package llm_test

import (
	"fmt"
	"strings"
	"testing"

	"keygate/domain/llm"
)

// BenchmarkEstimateRequest estimates a first turn's request of a
// mid-sized workspace: about 46 KB of instructions, tool schemas and
// context, nearly all ASCII.
func BenchmarkEstimateRequest(b *testing.B) {
	var layout strings.Builder
	for i := range 400 {
		fmt.Fprintf(&layout, "src/pkg%d/file_%d.go\n", i%20, i)
	}
	tools := make([]llm.Tool, 16)
	for i := range tools {
		tools[i] = llm.Tool{Name: fmt.Sprintf("mcp_tool_%d", i), Description: strings.Repeat("Does a thing. ", 20),
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"a path <in> the workspace"}},"required":["path"]}`)}
	}
	req := llm.Request{Instructions: strings.Repeat("You are a coding agent; follow the rules. ", 200), Tools: tools,
		Messages: []llm.Message{textMessage(llm.RoleUser, layout.String()), textMessage(llm.RoleUser, strings.Repeat("Rule: prefer small functions — “quoted”.\n", 150)),
			textMessage(llm.RoleUser, "hi")}}
	b.ReportAllocs()
	for b.Loop() {
		llm.EstimateRequest(req)
	}
}
