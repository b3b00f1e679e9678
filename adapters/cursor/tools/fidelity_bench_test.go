package tools_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// BenchmarkShellParse is the cost of a Shell call's start, which parses the
// command with a bash parser for the exec's parsing_result.
func BenchmarkShellParse(b *testing.B) {
	args, _ := json.Marshal(map[string]string{"command": `cd src && go test ./... 2>&1 | tee out.log; echo "done: $(git rev-parse HEAD)"`})
	env := tools.Env{Now: func() time.Time { return time.UnixMilli(0) }}
	for b.Loop() {
		tools.New(llm.ToolCall{CallID: "c", Name: "Shell", Arguments: args}, env).Start()
	}
}

// BenchmarkEditDiff is the cost of completing a StrReplace on a 2,000-line
// file: the replacement, the unified diff and its line counts.
func BenchmarkEditDiff(b *testing.B) {
	var file strings.Builder
	for i := range 2000 {
		file.WriteString("line ")
		file.WriteString(strings.Repeat("x", i%40))
		file.WriteString("\n")
	}
	file.WriteString("needle\n")
	before := file.String()
	args := []byte(`{"path":"big.txt","old_string":"needle","new_string":"thread"}`)
	env := tools.Env{Now: func() time.Time { return time.UnixMilli(0) }}
	read := &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: &agentv1.ReadResult{
		Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{Output: &agentv1.ReadSuccess_Content{Content: before}}}}}}
	wrote := &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
		Result: &agentv1.WriteResult_Success{Success: &agentv1.WriteSuccess{}}}}}
	for b.Loop() {
		c := tools.New(llm.ToolCall{CallID: "c", Name: "StrReplace", Arguments: args}, env)
		c.Start()
		c.OnExec(read)
		if a := c.OnExec(wrote); a.Result == nil || c.Card().GetEditToolCall().GetResult().GetSuccess().GetLinesAdded() != 1 {
			b.Fatal("edit did not complete with its diff")
		}
	}
}
