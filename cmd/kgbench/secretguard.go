package main

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"
	"time"

	"keygate/app/secretguard"
	"keygate/domain/llm"
	"keygate/domain/secretscan"
	"keygate/ports"
)

// Realistic code for the prompts: this program's own sources.
//
//go:embed compat.go
var codeCompat string

//go:embed store.go
var codeStore string

//go:embed tab.go
var codeTab string

// guardKey is a fixed marker key: the scan's cost does not depend on it.
var guardKey = []byte("kgbench secret guard marker key!")

// guardAWSKey is shaped like a real access key id (gitleaks allows the
// documentation's example).
const guardAWSKey = "AKIAZ3MSJV4WWNKWW5GG"

// guardRow is the secret guard's cost per request in one case.
type guardRow struct {
	Case, What string
	PerOp      time.Duration
	Allocs     int64
	N          int
	// Ratio is PerOp over the guard off's in this run.
	Ratio float64
}

// guardResult is the secret guard's scenario: the added time per request
// for a 50 KB Agent prompt (ten 5 KB messages of code, one carrying an AWS
// key), redact mode.
type guardResult struct {
	Rules int
	Rows  []guardRow
}

func runSecretGuard(ctx context.Context, _ *rig) (*guardResult, error) {
	probe, err := secretguard.NewScanner(guardKey, 0)
	if err != nil {
		return nil, err
	}
	res := &guardResult{Rules: probe.Rules()}
	cases := []struct {
		name, what string
		mode       secretscan.Mode
		req        func(i int) llm.Request
		warm       bool
		varies     bool
	}{
		{"off", "the guard off: the decorator alone (baseline)", secretscan.Off, func(int) llm.Request { return guardPrompt(0, 0) }, false, false},
		{"cold", "every text unseen: a conversation's first turn, or a replica that has not seen it", secretscan.Redact, func(i int) llm.Request { return guardPrompt(i+1, i+1) }, false, true},
		{"next turn", "the history scanned on an earlier turn, one new 5 KB message", secretscan.Redact, func(i int) llm.Request { return guardPrompt(0, i+1) }, true, true},
		{"same request", "every text scanned before (a retry, another attempt)", secretscan.Redact, func(int) llm.Request { return guardPrompt(0, 0) }, true, false},
	}
	var off time.Duration
	for _, c := range cases {
		var failed error
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			scan, err := secretguard.NewScanner(guardKey, 0)
			if err != nil {
				failed = err
				return
			}
			g := secretguard.New(nopProvider{}, scan, c.mode, nil)
			if c.warm {
				_, _ = g.Stream(ctx, ports.ModelCall{Request: guardPrompt(0, 0)})
			}
			// A request that does not vary is built once: stopping the
			// timer around its making would make the fast cases run for
			// hours (their N is set by the timed part alone).
			fixed := c.req(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := fixed
				if c.varies {
					b.StopTimer()
					req = c.req(i)
					b.StartTimer()
				}
				if _, err := g.Stream(ctx, ports.ModelCall{Request: req}); err != nil {
					failed = err
					return
				}
			}
		})
		if failed != nil {
			return nil, fmt.Errorf("secret guard %s: %w", c.name, failed)
		}
		row := guardRow{Case: c.name, What: c.what, PerOp: time.Duration(r.NsPerOp()), Allocs: r.AllocsPerOp(), N: r.N}
		if c.mode == secretscan.Off {
			off = row.PerOp
		} else if off > 0 {
			row.Ratio = float64(row.PerOp) / float64(off)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// guardPrompt is about 50 KB of code in ten messages, the sixth carrying
// an AWS key; history varies the first nine, last the tenth.
func guardPrompt(history, last int) llm.Request {
	code := strings.Repeat(codeCompat+codeStore+codeTab, 2)
	req := llm.Request{Model: "m", Instructions: "You are a coding agent."}
	for i := range 10 {
		id := history
		if i == 9 {
			id = last
		}
		off := (i * 5 * 1024) % (len(code) - 5*1024)
		text := fmt.Sprintf("message %d of %d\n%s", i, id, code[off:off+5*1024])
		if i == 5 {
			text += "\naws_access_key_id = " + guardAWSKey + "\n"
		}
		req.Messages = append(req.Messages, llm.Message{ID: fmt.Sprint(i), Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}})
	}
	return req
}

type nopProvider struct{}

func (nopProvider) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	return emptyStream{}, nil
}

type emptyStream struct{}

func (emptyStream) Next() bool       { return false }
func (emptyStream) Event() llm.Event { return llm.Event{} }
func (emptyStream) Err() error       { return nil }
func (emptyStream) Close() error     { return nil }
