package run_test

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// benchEngine is an engine over the in-memory store and the fake provider
// server, for measuring the engine's own cost per turn.
func benchEngine(b *testing.B) (*run.Engine, *providertest.Server, run.Model) {
	b.Helper()
	srv := providertest.NewServer()
	b.Cleanup(srv.Close)
	s := runtest.NewStore()
	e, err := run.New(run.Options{
		Conversations: s, Runs: s.Runs(), ToolRounds: s.Rounds(), Anchors: s,
		Provider: provider.New(provider.Options{Recorder: s}), Logger: zap.NewNop(),
	})
	if err != nil {
		b.Fatal(err)
	}
	return e, srv, run.Model{Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: srv.URL + "/v1/chat/completions"}}
}

func benchTurn(b *testing.B, e *run.Engine, model run.Model, i int) {
	msg, err := conversation.NewText(conversation.RuntimeID("e"), llm.RoleUser, conversation.OriginRuntime, "go")
	if err != nil {
		b.Fatal(err)
	}
	hd, err := e.Start(context.Background(), run.PreparedRun{
		RunID: fmt.Sprintf("bench:%08x", i), ConversationID: fmt.Sprintf("bench-%d", i), Model: model,
		InitialMessages: []conversation.Message{msg},
	})
	if err != nil {
		b.Fatal(err)
	}
	(&runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
		if x, ok := ev.(run.ExecuteToolRound); ok {
			for _, c := range x.Calls {
				hd.ToolResult(llm.ToolResult{CallID: c.CallID, Content: "result of " + c.CallID})
			}
		}
	}}).Drive(hd)
	if o, _ := hd.Wait(context.Background()); o.Status != run.Completed {
		b.Fatalf("run ended %s: %v", o.Status, o.Failure)
	}
}

// BenchmarkTextTurn measures one turn streaming 200 text deltas.
func BenchmarkTextTurn(b *testing.B) {
	e, srv, model := benchEngine(b)
	body := providertest.ChatSSE(providertest.Turn{Text: providertest.Tokens(200)})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		srv.Enqueue(providertest.Stream(body))
		benchTurn(b, e, model, i)
	}
}

// BenchmarkThreeRoundTurn measures a turn with three tool rounds (four
// model cycles, four tool results, nine commits).
func BenchmarkThreeRoundTurn(b *testing.B) {
	e, srv, model := benchEngine(b)
	turns := []providertest.Turn{
		{Calls: []providertest.Call{{ID: "c1", Name: "Read", Arguments: []string{`{"path":"a"}`}}}},
		{Calls: []providertest.Call{{ID: "c2", Name: "Read", Arguments: []string{`{}`}}, {ID: "c3", Name: "Read", Arguments: []string{`{}`}}}},
		{Calls: []providertest.Call{{ID: "c4", Name: "Shell", Arguments: []string{`{"command":"ls"}`}}}},
		{Text: providertest.Tokens(50)},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, t := range turns {
			srv.Enqueue(providertest.Stream(providertest.ChatSSE(t)))
		}
		benchTurn(b, e, model, i)
	}
}
