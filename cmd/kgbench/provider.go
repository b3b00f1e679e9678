package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"keygate/adapters/provider/providertest"
)

// tokenText is the text of token i: fixed width, so that the receiver finds
// token i's end at byte (i+1)*tokenWidth of the concatenated text whatever
// the deltas' boundaries.
func tokenText(i int) string { return fmt.Sprintf("~%05d~ ", i) }

const tokenWidth = 8

// marker tags a request with the turn it belongs to; the provider reads the
// last one in the body (earlier turns' markers are history).
var marker = regexp.MustCompile(`kgb-[0-9a-z-]+`)

// tokensSuffix in a turn id (kgb-...-n85) overrides the pace's token count
// for that turn.
var tokensSuffix = regexp.MustCompile(`-n([0-9]+)$`)

// pace is how one scenario's replies are played.
type pace struct {
	Tokens   int
	Interval time.Duration
	// Barrier, when > 0, holds every reply's tokens until that many
	// requests arrived (or BarrierWait passed), so that the turns stream at
	// the same time.
	Barrier     int
	BarrierWait time.Duration
	// FirstDelay is how long the reply waits, headers sent, before its
	// first chunk, as a model thinks before it answers.
	FirstDelay time.Duration
}

// paced is the fake provider: it answers every protocol path with a text
// turn of p.Tokens tokens, one SSE event each, the first at once and the
// others every p.Interval, and records when it wrote each token.
type paced struct {
	srv   *httptest.Server
	clock *clock

	mu      sync.Mutex
	p       pace
	arrived int
	open    chan struct{}
	sent    map[string][]time.Duration
	// arrived is when each turn's request reached the provider.
	arrivals map[string]time.Duration
}

func newPaced(c *clock) *paced {
	p := &paced{clock: c, sent: map[string][]time.Duration{}, arrivals: map[string]time.Duration{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p
}

// set starts a scenario: new pace, fresh records and barrier.
func (p *paced) set(pc pace) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p, p.arrived, p.open = pc, 0, make(chan struct{})
	p.sent, p.arrivals = map[string][]time.Duration{}, map[string]time.Duration{}
	if pc.Barrier <= 0 {
		close(p.open)
	}
}

// sentTimes returns the write times of the tokens of turn id, waiting up
// to a second for the reply to finish recording them.
func (p *paced) sentTimes(id string) []time.Duration {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		t, ok := p.sent[id]
		p.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return t
		}
	}
}

func (p *paced) close() { p.srv.Close() }

// arrivedCount is how many requests arrived since the last set.
func (p *paced) arrivedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrived
}

// arrival returns when turn id's request reached the provider.
func (p *paced) arrival(id string) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.arrivals[id]
	return t, ok
}

func (p *paced) serve(w http.ResponseWriter, r *http.Request) {
	at := p.clock.now()
	body, _ := io.ReadAll(r.Body)
	ids := marker.FindAll(body, -1)
	id := "unmarked"
	if len(ids) > 0 {
		id = string(ids[len(ids)-1])
	}
	p.mu.Lock()
	p.arrivals[id] = at
	pc, open := p.p, p.open
	p.arrived++
	slot := p.arrived - 1
	if pc.Barrier > 0 && p.arrived == pc.Barrier {
		close(p.open)
	}
	p.mu.Unlock()

	n := pc.Tokens
	if m := tokensSuffix.FindStringSubmatch(id); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	steps, tokenAt := script(r.URL.Path, n)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	if pc.Barrier > 0 {
		select {
		case <-open:
		case <-time.After(pc.BarrierWait):
		case <-r.Context().Done():
			return
		}
	}
	// After a barrier, replies start spread over one interval, as
	// independent users' streams would be, instead of all in the same
	// instant (which would measure queueing on a burst, not latency).
	var offset time.Duration
	if pc.Barrier > 0 {
		offset = time.Duration(slot%pc.Barrier) * pc.Interval / time.Duration(pc.Barrier)
		time.Sleep(offset)
	}
	if pc.FirstDelay > 0 {
		select {
		case <-time.After(pc.FirstDelay):
		case <-r.Context().Done():
			return
		}
	}
	times := make([]time.Duration, 0, n)
	var start time.Time
	for i, st := range steps {
		if k := tokenAt[i]; k >= 0 {
			if k == 0 {
				start = time.Now()
			} else if d := time.Until(start.Add(time.Duration(k) * pc.Interval)); d > 0 {
				time.Sleep(d)
			}
			times = append(times, p.clock.now())
		}
		if _, err := w.Write(st); err != nil {
			return
		}
		flusher.Flush()
	}
	p.mu.Lock()
	p.sent[id] = times
	p.mu.Unlock()
}

var scripts sync.Map // "path/tokens" -> scripted

type scripted struct {
	steps   [][]byte
	tokenAt []int
}

// script renders the SSE events of an n-token text turn for the protocol
// of path and marks which event carries which token (-1 for none).
func script(path string, n int) ([][]byte, []int) {
	key := fmt.Sprintf("%s/%d", path, n)
	if v, ok := scripts.Load(key); ok {
		s := v.(scripted)
		return s.steps, s.tokenAt
	}
	text := make([]string, n)
	for i := range text {
		text[i] = tokenText(i)
	}
	t := providertest.Turn{Text: text, Usage: providertest.Usage{Input: 20, Output: int64(n)}}
	var body []byte
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		body = providertest.ChatSSE(t)
	case strings.HasSuffix(path, "/responses"):
		body = providertest.ResponsesSSE(t)
	default:
		body = providertest.AnthropicSSE(t)
	}
	var s scripted
	next := 0
	for _, st := range providertest.Events(body) {
		k := -1
		if next < n && bytes.Contains(st.Data, []byte(tokenText(next))) {
			k = next
			next++
		}
		s.steps = append(s.steps, st.Data)
		s.tokenAt = append(s.tokenAt, k)
	}
	scripts.Store(key, s)
	return s.steps, s.tokenAt
}

// clock is the benchmark's monotonic clock: durations since its start.
type clock struct{ base time.Time }

func newClock() *clock { return &clock{base: time.Now()} }

func (c *clock) now() time.Duration { return time.Since(c.base) }
