package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// BenchmarkTextTurn is one Cursor turn end to end: RunSSE and BidiAppend
// over HTTP/1.1, the run layer, the engine on SQLite and a fake provider
// streaming 200 tokens, until the client reads the end of the stream. Each
// iteration is a new conversation. The transport lingers 20 ms after a
// successful turn before it ends the stream; that wait is included.
func BenchmarkTextTurn(b *testing.B) {
	for _, kind := range kinds {
		b.Run(string(kind), func(b *testing.B) {
			benchTurns(b, kind, func(ws *cursortest.Workspace, p *providertest.Server) {
				p.Enqueue(providertest.Stream(sse(kind, providertest.Turn{ID: "r", Text: providertest.Tokens(200)})))
			})
		})
	}
}

// BenchmarkToolRound is a turn with one round of three parallel calls
// (Read, Write, Shell) executed by the simulator in a temporary workspace,
// then a short answer: two model cycles, three execs, staged and settled
// checkpoints.
func BenchmarkToolRound(b *testing.B) {
	benchTurns(b, llm.ProviderOpenAIChat, func(ws *cursortest.Workspace, p *providertest.Server) {
		p.Enqueue(
			providertest.Stream(sse(llm.ProviderOpenAIChat, providertest.Turn{ID: "r1", Calls: []providertest.Call{
				call("c1", "Read", `{"path":"a.txt"}`), call("c2", "Write", `{"path":"b.txt","contents":"x"}`),
				call("c3", "Shell", `{"command":"echo hi"}`)}})),
			providertest.Stream(sse(llm.ProviderOpenAIChat, providertest.Turn{ID: "r2", Text: []string{"Done."}})),
		)
	})
}

func benchTurns(b *testing.B, kind llm.ProviderKind, script func(*cursortest.Workspace, *providertest.Server)) {
	p := providertest.NewServer()
	defer p.Close()
	s, err := openStack(b.TempDir(), kind, p.URL, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	ws := cursortest.NewWorkspace(b.TempDir())
	if err := os.WriteFile(filepath.Join(ws.Root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		script(ws, p)
		c := s.env.Client(fmt.Sprintf("bench-%d", i))
		c.OnMessage = ws.Handle
		b.StartTimer()
		st, err := c.Subscribe(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Send(ctx, cursortest.RunRequest(fmt.Sprintf("bench-conv-%d", i), "kg-model", "go")); err != nil {
			b.Fatal(err)
		}
		<-st.Done()
		if st.EndError() != nil || st.ReadError() != nil {
			b.Fatalf("turn %d ended with %v / %v", i, st.EndError(), st.ReadError())
		}
		st.Close()
	}
}
