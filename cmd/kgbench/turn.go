package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// ErrShortStream means a turn ended without every token, or with other text.
var ErrShortStream = errors.New("stream ended without the scripted text")

// turnResult is one streamed turn seen from its client.
type turnResult struct {
	id string
	// start is when the client sent its request; recv[i] when token i had
	// fully arrived; sent[i] when the provider wrote it.
	start      time.Duration
	recv, sent []time.Duration
	// checkpointBytes is the encoded size of the checkpoint updates the
	// client received.
	checkpointBytes int
	// reached is when the provider received the turn's request.
	reached time.Duration
	// appends are the client's BidiAppend round trips after the opening
	// one (KV replies), as [start, end] pairs.
	appends [][2]time.Duration
	err     error
}

// ttft is the time from the request to the first token's arrival.
func (r turnResult) ttft() (time.Duration, bool) {
	if r.err != nil || len(r.recv) == 0 {
		return 0, false
	}
	return r.recv[0] - r.start, true
}

// latencies are the per-token transit times, provider write to client read.
func (r turnResult) latencies() []time.Duration {
	if r.err != nil || len(r.sent) != len(r.recv) {
		return nil
	}
	out := make([]time.Duration, len(r.recv))
	for i := range r.recv {
		out[i] = r.recv[i] - r.sent[i]
	}
	return out
}

// gaps are the times between consecutive token arrivals.
func (r turnResult) gaps() []time.Duration {
	if r.err != nil || len(r.recv) < 2 {
		return nil
	}
	out := make([]time.Duration, 0, len(r.recv)-1)
	for i := 1; i < len(r.recv); i++ {
		out = append(out, r.recv[i]-r.recv[i-1])
	}
	return out
}

// directTurn is the limit: a plain SSE client posting to the fake provider
// and scanning lines for the tokens, without decoding JSON.
func directTurn(ctx context.Context, hc *http.Client, url, id string, n int, clk *clock, prov *paced) turnResult {
	body := fmt.Sprintf(`{"model":"upstream","stream":true,"messages":[{"role":"user","content":"question %s"}]}`, id)
	res := sseTokens(ctx, hc, url, body, id, n, clk, prov)
	if res.err == nil {
		res.reached, _ = prov.arrival(id)
	}
	return res
}

// keygateTurn runs one Cursor turn through Keygate with client c: RunSSE,
// then the opening BidiAppend, then the stream to its end, answering KV
// requests as the client does.
func keygateTurn(ctx context.Context, c *cursortest.Client, first *agentv1.AgentClientMessage, id string, n int, clk *clock, prov *paced) turnResult {
	res := turnResult{id: id}
	var text []byte
	c.OnMessage = func(_ context.Context, msg *agentv1.AgentServerMessage, _ cursortest.Sender) error {
		if cp := msg.GetConversationCheckpointUpdate(); cp != nil {
			res.checkpointBytes += proto.Size(cp)
		}
		t := cursortest.TextOf(msg)
		if t == "" {
			return nil
		}
		now := clk.now()
		text = append(text, t...)
		for len(res.recv) < n && len(text) >= (len(res.recv)+1)*tokenWidth {
			res.recv = append(res.recv, now)
		}
		return nil
	}
	st, err := c.Subscribe(ctx)
	if err != nil {
		res.err = err
		return res
	}
	defer st.Close()
	res.start = clk.now()
	if err := c.Send(ctx, first); err != nil {
		res.err = fmt.Errorf("send run request: %w", err)
		return res
	}
	select {
	case <-st.Done():
	case <-ctx.Done():
		res.err = fmt.Errorf("wait for turn end: %w", ctx.Err())
		return res
	}
	switch {
	case st.ReadError() != nil:
		res.err = st.ReadError()
	case st.EndError() != nil:
		res.err = st.EndError()
	case len(res.recv) != n || string(text) != expectedText(n):
		res.err = fmt.Errorf("%d of %d tokens: %w", len(res.recv), n, ErrShortStream)
	default:
		res.sent = prov.sentTimes(id)
		res.reached, _ = prov.arrival(id)
	}
	return res
}

// kvWait is the time the client spent on KV reply round trips between its
// request and the provider receiving the model request. Keygate does not
// wait for them before calling the model; they overlap its own work.
func (r turnResult) kvWait() time.Duration {
	var d time.Duration
	for i, a := range r.appends {
		if i > 0 && a[1] <= r.reached {
			d += a[1] - a[0]
		}
	}
	return d
}

// timedClient wraps hc so that the BidiAppend round trips of one turn are
// recorded into *into.
func timedClient(hc *http.Client, clk *clock, into *[][2]time.Duration) *http.Client {
	return &http.Client{Transport: &timedTransport{next: hc.Transport, clk: clk, into: into}}
}

type timedTransport struct {
	next http.RoundTripper
	clk  *clock
	mu   sync.Mutex
	into *[][2]time.Duration
}

func (t *timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != aiserverv1connect.BidiServiceBidiAppendProcedure {
		return t.next.RoundTrip(r)
	}
	start := t.clk.now()
	resp, err := t.next.RoundTrip(r)
	record := func() {
		t.mu.Lock()
		*t.into = append(*t.into, [2]time.Duration{start, t.clk.now()})
		t.mu.Unlock()
	}
	if err != nil {
		record()
		return nil, err
	}
	resp.Body = &closeHook{ReadCloser: resp.Body, hook: sync.OnceFunc(record)}
	return resp, err
}

func expectedText(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(tokenText(i))
	}
	return b.String()
}

// newTurn is a first turn of a fresh conversation for model, tagged id.
func newTurn(id, model string) *agentv1.AgentClientMessage {
	return cursortest.Request("conv-"+id, model, cursortest.UserMessageAction(id, "question "+id), nil)
}

// closeHook runs hook when the body is closed (the round trip's end).
type closeHook struct {
	io.ReadCloser
	hook func()
}

func (c *closeHook) Close() error {
	err := c.ReadCloser.Close()
	c.hook()
	return err
}
