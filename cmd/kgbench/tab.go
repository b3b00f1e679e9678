package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
	controlv1 "keygate/gen/keygate/control/v1"
)

// tabSettings size the Tab scenario: Cursor Tab requests through the
// proxy to Keygate's real composition root, answered by a fill-in-the-
// middle model, next to the same requests sent to that model directly.
type tabSettings struct {
	// Sequential is how many requests one typist makes per file size.
	Sequential int
	// SmallLines and LargeLines are the two file sizes.
	SmallLines, LargeLines int
	// Typists type at once, each asking every Every for Duration; of
	// each AbortOf requests all but the last are aborted AbortAfter after
	// they were sent, before the model's first token (the user typed on).
	Typists    int
	Every      time.Duration
	Duration   time.Duration
	AbortOf    int
	AbortAfter time.Duration
	// The model's answer: FirstDelay before the first of Tokens tokens,
	// then one every Interval.
	FirstDelay time.Duration
	Tokens     int
	Interval   time.Duration
}

// tabLevel is one load of the Tab scenario, next to its direct baseline.
type tabLevel struct {
	Name string
	// Requests were sent; Completed read to done_stream (the TTFT
	// samples); Errors failed otherwise.
	Requests, Completed, Errors, DirectErrors int
	FirstErr                                  string
	// TTFT is from sending the request to its first text, through the
	// proxy; DirectTTFT the same for the model asked directly.
	TTFT, DirectTTFT dist
	// Aborted counts the aborted requests that had reached the model, and
	// AbortToCancel the time from the client's abort to the model seeing
	// its connection close (Cancelled of them did). A request aborted
	// before Keygate called the model has no call to cancel.
	Aborted, Cancelled int
	AbortToCancel      dist
}

func (l tabLevel) AddedTTFT(q float64) time.Duration { return l.TTFT.Q(q) - l.DirectTTFT.Q(q) }

// tabReport is the Tab scenario's result.
type tabReport struct {
	Settings tabSettings
	// One is one typist on the small file, Large on the large one, Many
	// the typists together (small file).
	One, Large, Many tabLevel
	// CPUSmall and CPULarge are Keygate's CPU time per completed request
	// of one typist; BytesSmall and BytesLarge the requests' sizes.
	CPUSmall, CPULarge     time.Duration
	BytesSmall, BytesLarge int
}

// Issue 26's goals.
const (
	goalTabP50     = 2 * time.Millisecond
	goalTabP99     = 5 * time.Millisecond
	goalTabCancel  = 50 * time.Millisecond
	goalTabCPURate = 2.0
)

func runTab(ctx context.Context, r *rig) (*tabReport, error) {
	set := tabSettings{Sequential: 300, SmallLines: 200, LargeLines: 2000, Typists: 50, Every: 150 * time.Millisecond,
		Duration: 15 * time.Second, AbortOf: 3, AbortAfter: 10 * time.Millisecond,
		FirstDelay: 30 * time.Millisecond, Tokens: 16, Interval: 2 * time.Millisecond}
	if r.quick {
		set.Sequential, set.Duration = 40, 3*time.Second
	}
	rep, err := measureTab(ctx, r.clk, set)
	return &rep, err
}

// tabTarget is what the Tab targets' rows read.
type tabTarget struct {
	P50, P99, Cancel time.Duration
	CPURate          float64
	R                *tabReport
}

func judgeTab(res, _ *tabReport) []target {
	j := tabTarget{P50: goalTabP50, P99: goalTabP99, Cancel: goalTabCancel, CPURate: goalTabCPURate, R: res}
	ran := res != nil && res.One.Completed > 0 && res.Many.Completed > 0
	ttft := target{Row: "tab ttft", Data: j, Judged: ran}
	ttft.Met = ran && res.One.AddedTTFT(0.5) <= j.P50 && res.One.AddedTTFT(0.99) <= j.P99 &&
		res.Many.AddedTTFT(0.5) <= j.P50 && res.Many.AddedTTFT(0.99) <= j.P99
	cancel := target{Row: "tab cancel", Data: j, Judged: ran && res.Many.Cancelled > 0}
	cancel.Met = cancel.Judged && res.Many.Cancelled == res.Many.Aborted && res.Many.AbortToCancel.Q(0.99) <= j.Cancel
	cpu := target{Row: "tab cpu", Data: j, Judged: ran && res.CPUSmall > 0}
	cpu.Met = cpu.Judged && float64(res.CPULarge) <= j.CPURate*float64(res.CPUSmall)
	return []target{ttft, cancel, cpu}
}

// CPURatio is the large file's CPU per request over the small one's.
func (r *tabReport) CPURatio() float64 { return float64(r.CPULarge) / float64(max(r.CPUSmall, 1)) }

// fimModel is the fake fill-in-the-middle model: an OpenAI completions
// stream whose request is tagged by a marker in the prompt, recording when
// each request arrived, when its first token was written and when a
// client went away before the end.
type fimModel struct {
	srv *httptest.Server
	clk *clock
	set tabSettings

	mu      sync.Mutex
	gone    map[string]time.Duration
	arrived map[string]bool
}

var tabMarker = regexp.MustCompile(`kgt-[0-9a-z-]+`)

func newFIMModel(clk *clock, set tabSettings) *fimModel {
	m := &fimModel{clk: clk, set: set, gone: map[string]time.Duration{}, arrived: map[string]bool{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *fimModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	id := string(tabMarker.Find(body))
	m.mu.Lock()
	m.arrived[id] = true
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	left := func() {
		m.mu.Lock()
		m.gone[id] = m.clk.now()
		m.mu.Unlock()
	}
	select {
	case <-time.After(m.set.FirstDelay):
	case <-r.Context().Done():
		left()
		return
	}
	for i := range m.set.Tokens {
		if i > 0 {
			select {
			case <-time.After(m.set.Interval):
			case <-r.Context().Done():
				left()
				return
			}
		}
		if _, err := fmt.Fprintf(w, "data: {\"id\":\"cmpl-b\",\"object\":\"text_completion\",\"created\":1,\"model\":\"fim\",\"choices\":[{\"text\":\"t%02d \",\"index\":0,\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", i); err != nil {
			left()
			return
		}
		f.Flush()
	}
	_, _ = io.WriteString(w, "data: {\"id\":\"cmpl-b\",\"object\":\"text_completion\",\"created\":1,\"model\":\"fim\",\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}],\"usage\":null}\n\n"+
		"data: {\"id\":\"cmpl-b\",\"object\":\"text_completion\",\"created\":1,\"model\":\"fim\",\"choices\":[],\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":16,\"total_tokens\":916}}\n\ndata: [DONE]\n\n")
	f.Flush()
}

// goneAt is when request id's client went away, waiting up to a second
// for the model to notice; reached is false for a request that never
// reached the model (aborted before Keygate called it: nothing to cancel).
func (m *fimModel) goneAt(id string) (at time.Duration, ok, reached bool) {
	m.mu.Lock()
	reached = m.arrived[id]
	m.mu.Unlock()
	if !reached {
		return 0, false, false
	}
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		m.mu.Lock()
		t, ok := m.gone[id]
		m.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return t, ok, true
		}
	}
}

// tabFile is a Go file of n lines with the cursor at the end of its
// middle line, which carries the request's marker.
func tabFile(n int, id string) (string, int, int) {
	var b strings.Builder
	mid := n / 2
	col := 0
	for i := range n {
		switch {
		case i == mid:
			line := "\tv := " + id + " + "
			col = len(line)
			b.WriteString(line)
		case i%10 == 0:
			fmt.Fprintf(&b, "func f%d(a, b int) int {", i)
		case i%10 == 9:
			b.WriteString("}")
		default:
			fmt.Fprintf(&b, "\tx%d := a*%d + b // keep the running total of row %d", i, i, i)
		}
		b.WriteByte('\n')
	}
	return b.String(), mid, col
}

// tabRequest is a StreamCpp request as the editor sends it on a pause.
func tabRequest(lines int, id string) *aiserverv1.StreamCppRequest {
	contents, line, col := tabFile(lines, id)
	return &aiserverv1.StreamCppRequest{
		CurrentFile: &aiserverv1.CurrentFileInfo{RelativeWorkspacePath: "internal/bench/rows.go", Contents: contents,
			CursorPosition: &aiserverv1.CursorPosition{Line: int32(line), Column: int32(col)}, LanguageId: "go",
			TotalNumberOfLines: int32(lines), WorkspaceRootPath: "/home/dev/project"},
		FileDiffHistories: []*aiserverv1.CppFileDiffHistory{{FileName: "internal/bench/rows.go",
			DiffHistory: []string{"@@ -10,1 +10,1 @@\n-\tx := a\n+\tx := a*2\n"}}},
		AdditionalFiles: []*aiserverv1.AdditionalFile{{RelativeWorkspacePath: "internal/bench/sum.go", IsOpen: true,
			VisibleRangeContent:       []string{"func sum(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}"},
			StartLineNumberOneIndexed: []int32{1}}},
		WorkspaceId: proto.String("bench"), SupportsCpt: proto.Bool(true),
	}
}

// tabOutcome is one request's measurement.
type tabOutcome struct {
	id      string
	ttft    time.Duration
	aborted bool
	abortAt time.Duration
	err     error
	// For an aborted request through Keygate: whether it reached the model
	// and when the model saw its connection close (gone).
	reached, gone bool
	goneAt        time.Duration
}

// whenGone fills in what the model saw of an aborted request. It may wait
// up to a second, so it runs before the outcome is recorded under a lock.
func (o tabOutcome) whenGone(m *fimModel) tabOutcome {
	if o.aborted && o.err == nil {
		o.goneAt, o.gone, o.reached = m.goneAt(o.id)
	}
	return o
}

// keygateTab sends one StreamCpp through the proxy and reads it to its end,
// or aborts it abortAfter after sending (0: never).
func keygateTab(ctx context.Context, ai aiserverv1connect.AiServiceClient, req *aiserverv1.StreamCppRequest, id string, abortAfter time.Duration, clk *clock) tabOutcome {
	out := tabOutcome{id: id}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	creq := connect.NewRequest(req)
	creq.Header().Set("X-Request-Id", id)
	start := clk.now()
	if abortAfter > 0 {
		t := time.AfterFunc(abortAfter, func() {
			out.abortAt = clk.now()
			cancel()
		})
		defer t.Stop()
		out.aborted = true
	}
	stream, err := ai.StreamCpp(ctx, creq)
	if err != nil {
		if !out.aborted {
			out.err = err
		}
		return out
	}
	defer stream.Close()
	done := false
	for stream.Receive() {
		m := stream.Msg()
		if m.GetText() != "" && out.ttft == 0 {
			out.ttft = clk.now() - start
		}
		done = done || m.GetDoneStream()
	}
	if out.aborted {
		return out
	}
	if err := stream.Err(); err != nil {
		out.err = err
	} else if !done || out.ttft == 0 {
		out.err = errors.New("stream ended without a suggestion")
	}
	return out
}

// directTab asks the model the same way Keygate does, reading the stream
// with a plain client, and aborts it like keygateTab.
func directTab(ctx context.Context, hc *http.Client, url, id string, abortAfter time.Duration, clk *clock) tabOutcome {
	out := tabOutcome{id: id}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body := `{"model":"codestral-latest","prompt":"package bench\n\tv := ` + id + ` + ","suffix":"\n}\n","max_tokens":256,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		out.err = err
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-kgbench")
	start := clk.now()
	if abortAfter > 0 {
		t := time.AfterFunc(abortAfter, func() { out.abortAt = clk.now(); cancel() })
		defer t.Stop()
		out.aborted = true
	}
	resp, err := hc.Do(req)
	if err != nil {
		if !out.aborted {
			out.err = err
		}
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if out.ttft == 0 && bytes.Contains(sc.Bytes(), []byte(`"text":"t`)) {
			out.ttft = clk.now() - start
		}
	}
	if !out.aborted && out.ttft == 0 {
		out.err = errors.New("no token")
	}
	return out
}

// level gathers outcomes into a level; direct ones fill the baseline.
func (l *tabLevel) add(o tabOutcome, direct bool) {
	switch {
	case o.err != nil && direct:
		l.DirectErrors++
	case o.err != nil:
		l.Errors++
		if l.FirstErr == "" {
			l.FirstErr = o.err.Error()
		}
	case o.aborted && !direct:
		if o.reached {
			l.Aborted++
		}
		if o.gone {
			l.Cancelled++
			l.AbortToCancel = append(l.AbortToCancel, max(o.goneAt-o.abortAt, 0))
		}
	case o.aborted:
	case direct:
		l.DirectTTFT = append(l.DirectTTFT, o.ttft)
	default:
		l.Completed++
		l.TTFT = append(l.TTFT, o.ttft)
	}
	if !direct {
		l.Requests++
	}
}

func (l *tabLevel) sortAll() {
	l.TTFT, l.DirectTTFT, l.AbortToCancel = newDist(l.TTFT), newDist(l.DirectTTFT), newDist(l.AbortToCancel)
}

func measureTab(ctx context.Context, clk *clock, set tabSettings) (tabReport, error) {
	out := tabReport{Settings: set}
	model := newFIMModel(clk, set)
	defer model.srv.Close()
	// The child exports its spans as keygate serve would; nothing reads them.
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
	if err := kg.chooseFIMTab(model.srv.URL); err != nil {
		return out, err
	}
	// An editor's HTTP stack resumes TLS sessions (Node's agent keeps
	// them), which matters here: an abort closes its HTTP/1.1
	// connection, so the next request opens a new one.
	tr := kg.cursor.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ClientSessionCache = tls.NewLRUClientSessionCache(256)
	ai := aiserverv1connect.NewAiServiceClient(&http.Client{Transport: tr}, cursorAPI)
	defer tr.CloseIdleConnections()
	direct := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	defer direct.CloseIdleConnections()
	directURL := model.srv.URL + "/v1/completions"
	out.BytesSmall = proto.Size(tabRequest(set.SmallLines, "kgt-size"))
	out.BytesLarge = proto.Size(tabRequest(set.LargeLines, "kgt-size"))

	// Warm the connections and Keygate's caches of the model setting.
	for i := range 20 {
		id := fmt.Sprintf("kgt-warm%d", i)
		if o := keygateTab(ctx, ai, tabRequest(set.SmallLines, id), id, 0, clk); o.err != nil {
			return out, fmt.Errorf("warm-up tab request: %w", o.err)
		}
	}

	// One typist: interleaved with the direct request, per file size.
	for _, size := range []struct {
		lines int
		into  *tabLevel
		cpu   *time.Duration
	}{{set.SmallLines, &out.One, &out.CPUSmall}, {set.LargeLines, &out.Large, &out.CPULarge}} {
		step(fmt.Sprintf("tab: one typist, %d lines", size.lines))
		size.into.Name = fmt.Sprintf("one typist, %d-line file", size.lines)
		// The child's CPU is read once around the run: reading it costs
		// CPU of its own. The direct requests do not touch the child.
		cpu0 := kg.cpu()
		for i := range set.Sequential {
			id := fmt.Sprintf("kgt-s%d-%d", size.lines, i)
			size.into.add(directTab(ctx, direct, directURL, id+"-d", 0, clk), true)
			size.into.add(keygateTab(ctx, ai, tabRequest(size.lines, id), id, 0, clk), false)
		}
		*size.cpu = (kg.cpu() - cpu0) / time.Duration(max(size.into.Completed, 1))
		size.into.sortAll()
	}

	// Many typists: the direct pattern first, then the same through Keygate.
	out.Many.Name = fmt.Sprintf("%d typists", set.Typists)
	for _, viaKeygate := range []bool{false, true} {
		step(fmt.Sprintf("tab: %d typists (through Keygate: %v)", set.Typists, viaKeygate))
		var mu sync.Mutex
		var wg sync.WaitGroup
		deadline := time.Now().Add(set.Duration)
		for t := range set.Typists {
			wg.Go(func() {
				// Typists start spread over one interval, as independent people do.
				time.Sleep(time.Duration(t) * set.Every / time.Duration(set.Typists))
				tick := time.NewTicker(set.Every)
				defer tick.Stop()
				var inner sync.WaitGroup
				for i := 0; time.Now().Before(deadline); i++ {
					abort := time.Duration(0)
					if i%set.AbortOf != set.AbortOf-1 {
						abort = set.AbortAfter
					}
					id := fmt.Sprintf("kgt-m%v-%d-%d", viaKeygate, t, i)
					inner.Go(func() {
						var o tabOutcome
						if viaKeygate {
							o = keygateTab(ctx, ai, tabRequest(set.SmallLines, id), id, abort, clk).whenGone(model)
						} else {
							o = directTab(ctx, direct, directURL, id, abort, clk)
						}
						mu.Lock()
						out.Many.add(o, !viaKeygate)
						mu.Unlock()
					})
					<-tick.C
				}
				inner.Wait()
			})
		}
		wg.Wait()
	}
	out.Many.sortAll()
	return out, nil
}

// chooseFIMTab configures a fill-in-the-middle model on baseURL and makes
// it the Tab model, through the control API as the console does.
func (a *appProcess) chooseFIMTab(baseURL string) error {
	var created controlv1.CreateModelResponse
	if err := a.control("ModelService/CreateModel", &controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{DisplayName: "Bench Codestral",
		ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_COMPLETIONS, BaseUrl: baseURL, ModelId: "codestral-latest"},
		ApiKey: "sk-kgbench-0123456789", Enabled: true}, &created); err != nil {
		return err
	}
	var set controlv1.SetTabModelResponse
	if err := a.control("SettingService/SetTabModel", &controlv1.SetTabModelRequest{Model: created.GetModel().GetId()}, &set); err != nil {
		return err
	}
	if set.GetTabModel().GetModelId() == "" {
		return fmt.Errorf("tab model not set: %s", set.GetTabModel().GetProblem())
	}
	return nil
}

// control calls a control procedure with Connect JSON, as the console does.
func (a *appProcess) control(procedure string, req, resp proto.Message) error {
	body, err := protojson.Marshal(req)
	if err != nil {
		return err
	}
	r, err := benchHTTP.Post(a.url+"/keygate.control.v1."+procedure, "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", procedure, err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if r.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", procedure, r.Status, raw)
	}
	return protojson.Unmarshal(raw, resp)
}

// Aborts is how many of each AbortOf requests a typist aborts.
func (s tabSettings) Aborts() int { return s.AbortOf - 1 }
