package secretguard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"keygate/app/secretguard"
	"keygate/domain/llm"
	"keygate/domain/secretscan"
	"keygate/ports"
)

// prompt50KB is an Agent request of about 50 KB: ten messages of 5 KB of
// code, one with an AWS key in it.
func prompt50KB(turn int) llm.Request {
	req := llm.Request{Model: "m", Instructions: "You are a coding agent."}
	for i := range 10 {
		text := fmt.Sprintf("turn %d message %d\n%s", turn, i, code(5*1024))
		if i == 5 {
			text += "\naws_access_key_id = " + awsKey + "\n"
		}
		req.Messages = append(req.Messages, llm.Message{ID: fmt.Sprint(i), Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}})
	}
	return req
}

type nop struct{}

func (nop) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	return emptyStream{}, nil
}

// nextTurn is prompt50KB(0) with its last message new: the history was
// scanned on an earlier turn.
func nextTurn(i int) llm.Request {
	req := prompt50KB(0)
	last := &req.Messages[len(req.Messages)-1]
	last.Parts = []llm.Part{{Kind: llm.PartText, Text: fmt.Sprintf("turn %d\n%s", i, code(5*1024))}}
	return req
}

func benchGuard(b *testing.B, mode secretscan.Mode, fresh, next bool) {
	s, err := secretguard.NewScanner(key, 0)
	if err != nil {
		b.Fatal(err)
	}
	g := secretguard.New(nop{}, s, mode, nil)
	ctx := context.Background()
	reqs := []llm.Request{prompt50KB(0)}
	// The history as an earlier turn left it in the cache.
	if _, err := g.Stream(ctx, ports.ModelCall{Request: reqs[0]}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(50 * 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := reqs[0]
		if next {
			b.StopTimer()
			req = nextTurn(i)
			b.StartTimer()
		}
		if fresh {
			// Every text unseen: the first turn, or another replica.
			b.StopTimer()
			req = prompt50KB(1000 + i)
			b.StartTimer()
		}
		if _, err := g.Stream(ctx, ports.ModelCall{Request: req}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGuard50KB measures the scan's added time per request: off (the
// baseline: the decorator alone), cold (every text scanned) and warm (the
// request scanned on an earlier turn, answered from the cache) and next
// turn (the history cached, one new 5 KB message scanned).
func BenchmarkGuard50KB(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchGuard(b, secretscan.Off, false, false) })
	b.Run("redact-cold", func(b *testing.B) { benchGuard(b, secretscan.Redact, true, false) })
	b.Run("redact-next-turn", func(b *testing.B) { benchGuard(b, secretscan.Redact, false, true) })
	b.Run("redact-warm", func(b *testing.B) { benchGuard(b, secretscan.Redact, false, false) })
}

// nativeTurn is prompt50KB's conversation as a caller's own JSON body (the
// compatible API), its last message new on turn i.
func nativeTurn(i int) llm.Request {
	req := nextTurn(i)
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var body struct {
		Model    string `json:"model"`
		Messages []msg  `json:"messages"`
	}
	body.Model = "m"
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, msg{Role: "user", Content: m.Parts[0].Text})
	}
	raw, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return llm.Request{Native: &llm.Native{Kind: "x", Body: raw}}
}

// BenchmarkGuardNative50KB is a compatible-API caller's next request: its
// whole 50 KB body again with one new 5 KB message.
func BenchmarkGuardNative50KB(b *testing.B) {
	s, err := secretguard.NewScanner(key, 0)
	if err != nil {
		b.Fatal(err)
	}
	g := secretguard.New(nop{}, s, secretscan.Redact, nil)
	ctx := context.Background()
	if _, err := g.Stream(ctx, ports.ModelCall{Request: nativeTurn(0)}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(50 * 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		req := nativeTurn(i + 1)
		b.StartTimer()
		if _, err := g.Stream(ctx, ports.ModelCall{Request: req}); err != nil {
			b.Fatal(err)
		}
	}
}
