package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	controlv1 "keygate/gen/keygate/control/v1"
)

// compatSettings size the compatible-API scenario: a coding agent's
// request of BodyBytes through Keygate's /v1 endpoints on its real
// composition root, next to the same request sent to the provider.
type compatSettings struct {
	Requests  int
	BodyBytes int
	Tokens    int
	Interval  time.Duration
}

// compatRow is one way through the compatible API, next to its direct
// baseline.
type compatRow struct {
	Name string
	// Requests were made; Errors and DirectErrors failed.
	Requests, Errors, DirectErrors int
	FirstErr                       string
	// TTFT from sending to the first token at the client; Transit per
	// token from the provider's write to the client's read.
	TTFT, DirectTTFT, Transit, DirectTransit dist
	// CPUPer1k is Keygate's CPU time per 1,000 tokens delivered, the
	// requests' decoding and encoding included.
	CPUPer1k time.Duration
}

func (r compatRow) AddedTTFT(q float64) time.Duration  { return r.TTFT.Q(q) - r.DirectTTFT.Q(q) }
func (r compatRow) AddedToken(q float64) time.Duration { return r.Transit.Q(q) - r.DirectTransit.Q(q) }

type compatReport struct {
	Settings compatSettings
	Rows     []compatRow
}

// goalCompatTTFT is issue 28's goal for a same-protocol request.
const goalCompatTTFT = time.Millisecond

func runCompat(ctx context.Context, r *rig) (*compatReport, error) {
	set := compatSettings{Requests: 60, BodyBytes: 50 << 10, Tokens: 100, Interval: 2 * time.Millisecond}
	if r.quick {
		set.Requests = 12
	}
	rep, err := measureCompat(ctx, r.prov, r.clk, set)
	return &rep, err
}

func judgeCompat(res, _ *compatReport) []target {
	t := target{Row: "compat ttft", Data: res}
	if res != nil && len(res.Rows) > 0 && len(res.Rows[0].TTFT) > 0 {
		t.Judged = true
		t.Met = res.Rows[0].AddedTTFT(0.5) <= goalCompatTTFT
	}
	return []target{t}
}

// Goal is the added TTFT goal, for the template.
func (*compatReport) Goal() time.Duration { return goalCompatTTFT }

// claudeBody is a Claude Code-like Messages request of about size bytes:
// a system prompt, a long first user message with a cache breakpoint,
// tools, and the question carrying the turn's marker last.
func claudeBody(model, id string, size int) string {
	filler := strings.Repeat("The quick brown fox edits main.go line by line. ", max(size/2, 1)/49+1)
	half := len(filler) / 2
	return `{"model":"` + model + `","max_tokens":4096,"stream":true,` +
		`"system":[{"type":"text","text":"You are a coding agent. ` + filler[:half/4] + `"}],` +
		`"tools":[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},` +
		`{"name":"Edit","description":"Edit a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}}}}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"` + filler[:half] + `","cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"I read it."}]},` +
		`{"role":"user","content":"question ` + id + `"}]}`
}

// chatBody is the same conversation as OpenAI Chat, for the translated
// row's direct baseline.
func chatBody(id string, size int) string {
	filler := strings.Repeat("The quick brown fox edits main.go line by line. ", max(size/2, 1)/49+1)
	half := len(filler) / 2
	return `{"model":"upstream","stream":true,"stream_options":{"include_usage":true},"messages":[` +
		`{"role":"system","content":"You are a coding agent. ` + filler[:half/4] + `"},` +
		`{"role":"user","content":"` + filler[:half] + `"},{"role":"assistant","content":"I read it."},` +
		`{"role":"user","content":"question ` + id + `"}]}`
}

// sseTokens posts body and scans the streamed answer's lines for the
// turn's tokens, without decoding JSON: the direct baseline's reader, and
// the compatible API's client.
func sseTokens(ctx context.Context, hc *http.Client, url, body, id string, n int, clk *clock, prov *paced) turnResult {
	res := turnResult{id: id}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		res.err = err
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("User-Agent", "claude-cli/2.1.328 (external, sdk-cli)")
	res.start = clk.now()
	resp, err := hc.Do(req)
	if err != nil {
		res.err = fmt.Errorf("post: %w", err)
		return res
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		res.err = fmt.Errorf("%s: %s", resp.Status, raw)
		return res
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	next := []byte(tokenText(0))
	for {
		line, err := br.ReadSlice('\n')
		for len(res.recv) < n && bytes.Contains(line, next) {
			res.recv = append(res.recv, clk.now())
			next = []byte(tokenText(len(res.recv)))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			res.err = fmt.Errorf("read stream: %w", err)
			return res
		}
	}
	if len(res.recv) != n {
		res.err = fmt.Errorf("%d of %d tokens: %w", len(res.recv), n, ErrShortStream)
		return res
	}
	res.sent = prov.sentTimes(id)
	return res
}

func measureCompat(ctx context.Context, prov *paced, clk *clock, set compatSettings) (compatReport, error) {
	out := compatReport{Settings: set}
	col, err := startCollector()
	if err != nil {
		return out, err
	}
	defer col.close()
	kg, err := startApp(col.url)
	if err != nil {
		return out, err
	}
	defer kg.close()
	for _, m := range []struct {
		name string
		kind controlv1.ProviderKind
	}{{"Bench Claude", controlv1.ProviderKind_PROVIDER_KIND_ANTHROPIC}, {"Bench GPT", controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT}} {
		var created controlv1.CreateModelResponse
		if err := kg.control("ModelService/CreateModel", &controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{DisplayName: m.name,
			ProviderKind: m.kind, BaseUrl: prov.srv.URL, ModelId: "upstream", SupportsTools: true},
			ApiKey: "sk-kgbench-0123456789", Enabled: true}, &created); err != nil {
			return out, err
		}
	}
	prov.set(pace{Tokens: set.Tokens, Interval: set.Interval})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer hc.CloseIdleConnections()
	rows := []struct {
		name, model, direct string
		body                func(id string) string
	}{
		{"Anthropic Messages in, Anthropic target (same protocol)", "Bench Claude", "/v1/messages",
			func(id string) string { return claudeBody("upstream", id, set.BodyBytes) }},
		{"Anthropic Messages in, OpenAI Chat target (translated)", "Bench GPT", "/v1/chat/completions",
			func(id string) string { return chatBody(id, set.BodyBytes) }},
	}
	for ri, row := range rows {
		step("compat: " + row.name)
		r := compatRow{Name: row.name}
		var tokens int
		for i := range 3 { // warm-up: connections, the model's resolution
			id := fmt.Sprintf("kgb-cw%d-%d", ri, i)
			_ = sseTokens(ctx, hc, kg.url+"/v1/messages", claudeBody(row.model, id, set.BodyBytes), id, set.Tokens, clk, prov)
		}
		// The child's CPU is read once around the row: reading it costs
		// CPU of its own, and the direct requests do not touch the child.
		cpu0 := kg.cpu()
		for i := range set.Requests {
			id := fmt.Sprintf("kgb-c%d-%d", ri, i)
			d := sseTokens(ctx, hc, prov.srv.URL+row.direct, row.body(id+"-d"), id+"-d", set.Tokens, clk, prov)
			k := sseTokens(ctx, hc, kg.url+"/v1/messages", claudeBody(row.model, id, set.BodyBytes), id, set.Tokens, clk, prov)
			r.Requests++
			if d.err != nil {
				r.DirectErrors++
			} else if t, ok := d.ttft(); ok {
				r.DirectTTFT = append(r.DirectTTFT, t)
				r.DirectTransit = append(r.DirectTransit, d.latencies()...)
			}
			if k.err != nil {
				r.Errors++
				if r.FirstErr == "" {
					r.FirstErr = k.err.Error()
				}
			} else if t, ok := k.ttft(); ok {
				r.TTFT = append(r.TTFT, t)
				r.Transit = append(r.Transit, k.latencies()...)
				tokens += len(k.recv)
			}
		}
		cpu := kg.cpu() - cpu0
		r.TTFT, r.DirectTTFT, r.Transit, r.DirectTransit = newDist(r.TTFT), newDist(r.DirectTTFT), newDist(r.Transit), newDist(r.DirectTransit)
		if tokens > 0 {
			r.CPUPer1k = cpu * 1000 / time.Duration(tokens)
		}
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// KiB is the request's size in KiB, for the report.
func (s compatSettings) KiB() int { return s.BodyBytes >> 10 }
