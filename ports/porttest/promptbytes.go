package porttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

// PromptMeter returns the bytes a call's stored prompt occupies.
type PromptMeter func(ctx context.Context, callID string) (int64, error)

// PromptBytes is what the prompts of [AgentConversation] occupy in a
// store, call by call: kept whole (what every call kept before detailed
// mode decided it, and what detailed mode keeps) and as shapes (what every
// other call keeps).
type PromptBytes struct {
	Whole, Shape []int64
}

// Totals sums the calls.
func (p PromptBytes) Totals() (whole, shape int64) {
	for i := range p.Whole {
		whole, shape = whole+p.Whole[i], shape+p.Shape[i]
	}
	return whole, shape
}

// String prints the measurement for people.
func (p PromptBytes) String() string {
	var b strings.Builder
	b.WriteString("call  messages  whole B  shape B\n")
	for i := range p.Whole {
		fmt.Fprintf(&b, "%4d  %8d  %7d  %7d\n", i+1, 2*(i+1), p.Whole[i], p.Shape[i])
	}
	w, s := p.Totals()
	fmt.Fprintf(&b, "total           %7d  %7d  (%.1f%%)\n", w, s, 100*float64(s)/float64(w))
	return b.String()
}

// AgentConversation returns the 20 requests of a realistic agent
// conversation growing turn by turn to 40 messages: a large system prompt
// and 14 tools with JSON schemas; a context message and the user's question
// with a screenshot (120 kB, as incompressible as a PNG); then, per call
// after the first, the model's assistant turn (thinking with its replay
// signature, a short text, one tool call) and the tool's result, 2 to 6 kB
// of code. Call c sends 2c messages. The content comes from a fixed seed.
func AgentConversation() []llm.Request {
	rng := rand.New(rand.NewPCG(15, 2026))
	code := func(n int) string {
		words := []string{"func", "return", "err", "if", "nil", "ctx", "context.Context", "string", "for", "range", ":=", "{", "}",
			"fmt.Errorf(\"open %s: %w\", name, err)", "store", "tx", "row", "int64", "// keeps the cache warm", "append(out, v)"}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(8) == 0 {
				b.WriteString("\n\t")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()[:n]
	}
	base := llm.Request{Model: "claude-sonnet-4-5", CacheKey: "conv-7f3a", Instructions: code(9000),
		Reasoning: llm.Reasoning{Enabled: true, Effort: "medium"}}
	for _, name := range []string{"Read", "Write", "Edit", "Glob", "Grep", "Shell", "ListDir", "Delete", "WebSearch",
		"WebFetch", "TodoWrite", "ReadLints", "SemanticSearch", "MCPTool"} {
		base.Tools = append(base.Tools, llm.Tool{Name: name, Description: code(400),
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"` + code(200) +
				`"},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	screenshot := make([]byte, 120<<10)
	for i := range screenshot {
		screenshot[i] = byte(rng.Uint32())
	}
	history := []llm.Message{
		{ID: "context", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText,
			Text: "<user_info>OS: linux, shell: bash, workspace: /src/keygate</user_info>\n<rules>" + code(1500) + "</rules>"}}},
		{ID: "question", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: code(600)},
			{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", BlobID: "sha256-screenshot", Data: screenshot}}}},
	}
	out := make([]llm.Request, 0, 20)
	for c := 1; c <= 20; c++ {
		if c > 1 {
			id := fmt.Sprintf("toolu_%02d", c-1)
			history = append(history,
				llm.Message{ID: fmt.Sprintf("run1:assistant:%d", c-1), Role: llm.RoleAssistant, Assistant: &llm.Assistant{
					Thinking: code(600), Text: code(150), Replay: &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(code(300))},
					Calls: []llm.ToolCall{{CallID: id, Name: "Read",
						Arguments: fmt.Appendf(nil, `{"path":"adapters/relstore/file%d.go","limit":400}`, c)}}}},
				llm.Message{ID: fmt.Sprintf("tool:%d", c-1), Role: llm.RoleTool,
					ToolResult: &llm.ToolResult{CallID: id, Name: "Read", Content: code(2000 + rng.IntN(4000))}})
		}
		req := base
		req.Messages = history[:len(history):len(history)]
		out = append(out, req)
	}
	return out
}

// MeasurePromptBytes stores every call of AgentConversation in ps twice,
// kept whole and as a shape, and measures each with measure.
func MeasurePromptBytes(ctx context.Context, ps ports.PromptStore, measure PromptMeter) (PromptBytes, error) {
	var out PromptBytes
	conv := uniq("prompt-bytes")
	for c, req := range AgentConversation() {
		shape := prefix.ShapeOf(req)
		for _, k := range []struct {
			suffix string
			p      ports.StoredPrompt
			into   *[]int64
		}{
			{"whole", ports.StoredPrompt{At: time.Now(), Request: &req}, &out.Whole},
			{"shape", ports.StoredPrompt{At: time.Now(), Shape: &shape}, &out.Shape},
		} {
			id := fmt.Sprintf("%s-%s-%d", conv, k.suffix, c)
			if err := ps.PutPrompt(ctx, id, k.p); err != nil {
				return out, err
			}
			n, err := measure(ctx, id)
			if err != nil {
				return out, err
			}
			*k.into = append(*k.into, n)
		}
	}
	return out, nil
}

// BenchPromptBytes reports MeasurePromptBytes as metrics: bytes per call
// at the first and last call, and totals, kept whole and as shapes.
func BenchPromptBytes(b *testing.B, ps ports.PromptStore, measure PromptMeter) {
	ctx := context.Background()
	for b.Loop() {
		m, err := MeasurePromptBytes(ctx, ps, measure)
		if err != nil {
			b.Fatal(err)
		}
		whole, shape := m.Totals()
		last := len(m.Whole) - 1
		b.ReportMetric(float64(m.Whole[0]), "whole-B/call@1")
		b.ReportMetric(float64(m.Shape[0]), "shape-B/call@1")
		b.ReportMetric(float64(m.Whole[last]), fmt.Sprintf("whole-B/call@%d", last+1))
		b.ReportMetric(float64(m.Shape[last]), fmt.Sprintf("shape-B/call@%d", last+1))
		b.ReportMetric(float64(whole), "whole-B/total")
		b.ReportMetric(float64(shape), "shape-B/total")
	}
}

// DescribePromptBytes declares a spec that measures the prompts of
// AgentConversation in a store, prints the table as a report entry (go
// test -v ... -args -ginkgo.v) and checks only that shapes are not copies
// of the requests: each call's shape takes under a tenth of its whole
// request.
func DescribePromptBytes(name string, open func() (ports.PromptStore, PromptMeter)) bool {
	return Describe(name+" prompt storage", func() {
		It("keeps a shape of each call in a small fraction of the bytes of its whole request", func(ctx SpecContext) {
			ps, measure := open()
			m, err := MeasurePromptBytes(ctx, ps, measure)
			Expect(err).NotTo(HaveOccurred())
			AddReportEntry(name+" prompt bytes per call", m.String())
			for i := range m.Whole {
				Expect(m.Shape[i]).To(BeNumerically("<", m.Whole[i]/10), "call %d", i+1)
			}
		})
	})
}
