package provider_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"keygate/adapters/provider"
	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
	"keygate/ports"
)

const benchTokens = 10000

type benchDecoder interface {
	Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error)
	End(out []llm.Event) ([]llm.Event, error)
	Ended() bool
}

var transcripts = map[string]struct {
	body []byte
	dec  func() benchDecoder
}{
	"chat":      {providertest.ChatSSE(providertest.Turn{Text: providertest.Tokens(benchTokens)}), func() benchDecoder { return &openai.ChatDecoder{} }},
	"responses": {providertest.ResponsesSSE(providertest.Turn{Text: providertest.Tokens(benchTokens)}), func() benchDecoder { return &openai.ResponsesDecoder{} }},
	"anthropic": {providertest.AnthropicSSE(providertest.Turn{Text: providertest.Tokens(benchTokens)}), func() benchDecoder { return &anthropic.Decoder{} }},
}

// BenchmarkDecode measures SSE reading plus event decoding of a
// 10,000-token transcript; ns/event and allocs/event are per text delta.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"chat", "responses", "anthropic"} {
		t := transcripts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(t.body)))
			b.ReportAllocs()
			events := make([]llm.Event, 0, 16)
			rd := bytes.NewReader(t.body)
			for b.Loop() {
				rd.Reset(t.body)
				r := sse.NewReader(rd, 0)
				d := t.dec()
				n := 0
				for !d.Ended() {
					ev, err := r.Next()
					if errors.Is(err, io.EOF) {
						events, err = d.End(events[:0])
						if err != nil {
							b.Fatal(err)
						}
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if events, err = d.Decode(ev, events[:0]); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n < benchTokens {
					b.Fatalf("decoded %d events", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTokens, "ns/token")
		})
	}
}

// BenchmarkLineScan is the floor: splitting the same bytes into lines with
// bufio.Scanner and nothing else.
func BenchmarkLineScan(b *testing.B) {
	for _, name := range []string{"chat", "responses", "anthropic"} {
		t := transcripts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(t.body)))
			b.ReportAllocs()
			rd := bytes.NewReader(t.body)
			for b.Loop() {
				rd.Reset(t.body)
				s := bufio.NewScanner(rd)
				s.Buffer(make([]byte, 0, 64<<10), 16<<20)
				lines := 0
				for s.Scan() {
					lines++
				}
				if lines < benchTokens {
					b.Fatalf("scanned %d lines", lines)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTokens, "ns/token")
		})
	}
}

// BenchmarkRequest measures serialising a 200-message history.
func BenchmarkRequest(b *testing.B) {
	req := history(200)
	for _, c := range []struct {
		name  string
		build func(dst []byte) ([]byte, error)
	}{
		{"chat", func(dst []byte) ([]byte, error) { return openai.AppendChat(dst, req, openai.Options{}) }},
		{"responses", func(dst []byte) ([]byte, error) { return openai.AppendResponses(dst, req, openai.Options{}) }},
		{"anthropic", func(dst []byte) ([]byte, error) {
			return anthropic.AppendRequest(dst, req, anthropic.Options{Extras: (*wire.Extras)(nil)})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				var err error
				if buf, err = c.build(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

// history builds n messages: user prompts, assistant turns with a tool call
// and ~1 KiB tool results, as an agent conversation looks.
func history(n int) llm.Request {
	req := providertest.Conversation(llm.ProviderOpenAIChat)[0]
	req.Messages = nil
	result := string(bytes.Repeat([]byte("func handler(w http.ResponseWriter, r *http.Request) {\n\t\"ok\"\n}\n"), 16))
	for i := 0; len(req.Messages) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "Please look at file number " + id + " and fix <it> & test."}}},
			llm.Message{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "Reading the file now.",
				Calls: []llm.ToolCall{{CallID: id, Name: "read_file", Arguments: []byte(`{"path": "src/` + id + `.go"}`)}}}},
			llm.Message{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: id, Name: "read_file", Content: result}},
			llm.Message{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "Done with " + id + "."}},
		)
	}
	req.Messages = req.Messages[:n]
	return req
}

// BenchmarkStream measures a whole call over loopback HTTP against the fake
// provider: request, headers and a 10,000-token body written in one go,
// recording off.
func BenchmarkStream(b *testing.B) {
	for _, c := range []struct {
		name string
		kind llm.ProviderKind
	}{{"chat", llm.ProviderOpenAIChat}, {"responses", llm.ProviderOpenAIResponses}, {"anthropic", llm.ProviderAnthropic}} {
		b.Run(c.name, func(b *testing.B) {
			srv := providertest.NewServer()
			defer srv.Close()
			client := provider.New(provider.Options{})
			reply := providertest.Reply{Steps: []providertest.Step{{Data: transcripts[c.name].body}}}
			call := ports.ModelCall{CallID: "bench", Endpoint: ports.Endpoint{Kind: c.kind, URL: srv.URL + "/v1/x", APIKey: "k"},
				Request: simpleRequest("model-x")}
			b.ReportAllocs()
			for b.Loop() {
				srv.Enqueue(reply)
				s, err := client.Stream(context.Background(), call)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for s.Next() {
					n++
				}
				if s.Err() != nil || n < benchTokens {
					b.Fatalf("%d events, %v", n, s.Err())
				}
				s.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTokens, "ns/token")
		})
	}
}
