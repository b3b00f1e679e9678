package porttest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// The benchmarks below are shared by every store; adapters call them from
// their own Benchmark functions. They report, they assert nothing.

// StorageMeter returns the bytes a conversation's checkpoints occupy and what a
// layout copying each checkpoint's full list would occupy.
type StorageMeter func(ctx context.Context, conversationID string) (stored, fullCopy int64, err error)

// turn appends one user message and one assistant answer (two checkpoints,
// as the run engine writes them) and returns the new head.
func turn(ctx context.Context, cs ports.ConversationStore, head conversation.Checkpoint, i int) (conversation.Checkpoint, error) {
	for _, spec := range []conversation.MessageSpec{
		{ID: fmt.Sprintf("runtime:u%d", i), Role: llm.RoleUser, Origin: conversation.OriginRuntime,
			Parts: []llm.Part{{Kind: llm.PartText, Text: fmt.Sprintf("question %d: what does this function do?", i)}}},
		{ID: fmt.Sprintf("run%d:assistant:0", i), Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
			Assistant: &llm.Assistant{Text: fmt.Sprintf("answer %d: it appends a message to the head checkpoint.", i)}},
	} {
		m, err := conversation.NewMessage(spec)
		if err != nil {
			return head, err
		}
		d, err := cs.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, m)})
		if err != nil {
			return head, err
		}
		head = d.Checkpoint
	}
	return head, nil
}

// BenchAppendMessage times one append of one message to the head.
func BenchAppendMessage(b *testing.B, st ports.Stores) {
	ctx := context.Background()
	head, err := st.Conversations.Open(ctx, uniq("bench-append"))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m, err := conversation.NewText(fmt.Sprintf("m%d", i), llm.RoleUser, conversation.OriginRuntime, "hello")
		if err != nil {
			b.Fatal(err)
		}
		d, err := st.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, m)})
		if err != nil {
			b.Fatal(err)
		}
		head = d.Checkpoint
	}
}

// BenchCommitToolResult times committing one tool result (call part and
// result appended, completion recorded) within a running run.
func BenchCommitToolResult(b *testing.B, st ports.Stores) {
	ctx := context.Background()
	conv := uniq("bench-tool")
	head, err := st.Conversations.Open(ctx, conv)
	if err != nil {
		b.Fatal(err)
	}
	run := conv + "-run"
	if _, err := st.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: conv, Kind: "root"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		r, err := toolround.New(conversation.ToolRoundID(run, i), llm.Assistant{Calls: []llm.ToolCall{
			{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"main.go"}`)},
		}})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.ToolRounds.Start(ctx, run, head.ID(), r); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c, err := st.ToolRounds.Commit(ctx, run, r.ID(), llm.ToolResult{CallID: "c1", Content: "package main"})
		if err != nil {
			b.Fatal(err)
		}
		head = c.Checkpoint
	}
}

// BenchLoadCheckpoint times loading (and verifying) a checkpoint holding
// 2×turns messages spread over 2×turns checkpoints.
func BenchLoadCheckpoint(b *testing.B, st ports.Stores, turns int) {
	ctx := context.Background()
	head, err := st.Conversations.Open(ctx, uniq("bench-load"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range turns {
		if head, err = turn(ctx, st.Conversations, head, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, msgs, err := st.Conversations.Load(ctx, head.ID()); err != nil || len(msgs) != 2*turns {
			b.Fatal(len(msgs), err)
		}
	}
}

// BenchCheckpointBytes writes a 1,000-turn conversation and reports the
// checkpoint bytes per turn at turn 10 and turn 1,000, next to what a
// layout copying every full list would need.
func BenchCheckpointBytes(b *testing.B, st ports.Stores, measure StorageMeter) {
	ctx := context.Background()
	for b.Loop() {
		conv := uniq("bench-bytes")
		head, err := st.Conversations.Open(ctx, conv)
		if err != nil {
			b.Fatal(err)
		}
		for i := 1; i <= 1000; i++ {
			if head, err = turn(ctx, st.Conversations, head, i); err != nil {
				b.Fatal(err)
			}
			if i != 10 && i != 1000 {
				continue
			}
			stored, full, err := measure(ctx, conv)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(stored)/float64(i), fmt.Sprintf("B/turn@%d", i))
			b.ReportMetric(float64(full)/float64(i), fmt.Sprintf("fullcopy-B/turn@%d", i))
		}
	}
}

// BenchTurnStarts times the store writes of turns that start together, as
// the run engine makes them for a new conversation before its model call:
// open (create), claim the run, append the user message with a request
// context of contextBytes, take the provider call index. Each iteration is
// one turn; parallel turns run at once (b.SetParallelism), so a store that
// serializes writers shows its queue here.
func BenchTurnStarts(b *testing.B, st ports.Stores, contextBytes int) {
	ctx := context.Background()
	reqCtx := make([]byte, contextBytes)
	for i := range reqCtx {
		reqCtx[i] = 'a' + byte(i%26)
	}
	prefix := uniq("bench-start")
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			conv := fmt.Sprintf("%s-%d", prefix, n.Add(1))
			if err := turnStart(ctx, st, conv, string(reqCtx)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func turnStart(ctx context.Context, st ports.Stores, conv, reqCtx string) error {
	head, err := st.Conversations.Open(ctx, conv)
	if err != nil {
		return err
	}
	run := conv + ":run"
	if _, err := st.Runs.Claim(ctx, ports.RunClaim{RunID: run, ConversationID: conv, Kind: "root"}); err != nil {
		return err
	}
	var msgs []conversation.Message
	for _, spec := range []conversation.MessageSpec{
		{ID: "request-context:e1", Role: llm.RoleUser, Origin: conversation.OriginRuntime, Parts: []llm.Part{{Kind: llm.PartText, Text: reqCtx}}},
		{ID: "runtime:e1", Role: llm.RoleUser, Origin: conversation.OriginRuntime, Parts: []llm.Part{{Kind: llm.PartText, Text: "where is the retry policy decided?"}}},
	} {
		m, err := conversation.NewMessage(spec)
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
	}
	if _, err := st.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, msgs...), RunID: run}); err != nil {
		return err
	}
	_, err = st.Runs.BeginProviderCall(ctx, run)
	return err
}
