package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"keygate/adapters/cursor/agent"
)

// BenchmarkArgStream decodes a Write of 100 KB streamed in 8-byte deltas,
// as a model streams its arguments.
func BenchmarkArgStream(b *testing.B) {
	raw, _ := json.Marshal(map[string]string{"path": "a.go", "contents": strings.Repeat("func f() { return \"é\" }\n", 4000)})
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		s := agent.NewArgStream("contents")
		for i := 0; i < len(raw); i += 8 {
			s.Feed(string(raw[i:min(i+8, len(raw))]))
		}
	}
}
