package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// cursorAPI is the host Cursor sends its Agent to; the proxy intercepts it.
const cursorAPI = "https://api2.cursor.sh"

// streamIdle is how long a stream may stay silent before the client
// gives up on it (Keygate heartbeats every 5 s while a turn runs).
const streamIdle = 8 * time.Second

// turnRecord is what a client knows of one of its turns.
type turnRecord struct {
	conv string
	n    int
	// completed: the client saw turn_ended for it (possibly after resumes).
	completed bool
	// resumes is how many times the client had to reconnect or resume.
	resumes int
	// dropped: the harness cut the client's stream during the turn.
	dropped bool
	// failures are what broke each attempt, in order.
	failures []string
	// recovery is the time from the first failure to the first
	// turn_ended the client received, for turns that completed after a
	// reconnect or resume.
	recovery time.Duration
	// added is the turn's time beyond the provider's streaming, for turns
	// that completed on their first stream.
	added time.Duration
	// steps is the timeline of a turn's recovery after its first
	// failure: each pause and attempt, how long it took and how it ended.
	steps []step
	// requestID is the first attempt's request id, to find the turn in
	// the replicas' logs.
	requestID string
	// abandoned is how many of the turn's replies the client numbered and
	// gave up because their stream was cut while they were being sent.
	abandoned int64
}

// step is one part of a turn's recovery: a pause before an attempt, or an
// attempt (reconnect, resume, resend) and its outcome ("" when it
// completed the turn).
type step struct {
	what    string
	took    time.Duration
	outcome string
}

// pause sleeps d and notes it in rec's timeline.
func (rec *turnRecord) pause(d time.Duration) {
	time.Sleep(d)
	rec.steps = append(rec.steps, step{what: "pause", took: d})
}

// convRecord is one conversation a client ran, and the window (client)
// holding its KV store and latest checkpoint.
type convRecord struct {
	id     string
	window *cursortest.Client
	turns  []*turnRecord
}

// tally counts errors by kind across clients.
type tally struct {
	mu     sync.Mutex
	counts map[string]int
}

func (t *tally) add(kind string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[kind]++
}

func (t *tally) snapshot() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.counts))
	for k, v := range t.counts {
		out[k] = v
	}
	return out
}

// member is one simulated developer: a company member with a personal
// gateway token whose Cursor reaches Keygate through the balancer, running
// conversations one turn after another.
type member struct {
	n       int
	run     string
	model   string
	hc      *http.Client
	tr      *http.Transport
	ws      *cursortest.Workspace
	rng     *rand.Rand
	prov    *provider
	errs    *tally
	turns   int
	dropP   float64
	timeout time.Duration

	convs []*convRecord
}

// newMember sets up the member's Cursor: http.proxy at the balancer with
// the token as proxy password, trusting the company CA, and a workspace
// holding notes.txt.
func newMember(n int, run, model, balancer, token string, s *settings, roots *x509.CertPool, dir string, prov *provider, errs *tally) (*member, error) {
	root := filepath.Join(dir, fmt.Sprintf("workspace-%d", n))
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("Buy milk. Ship the release. Water the plants.\n"), 0o600); err != nil {
		return nil, err
	}
	tr := &http.Transport{
		Proxy:               http.ProxyURL(&url.URL{Scheme: "http", User: url.UserPassword("cursor", token), Host: balancer}),
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 8,
	}
	return &member{n: n, run: run, model: model, hc: &http.Client{Transport: tr}, tr: tr,
		ws: cursortest.NewWorkspace(root), rng: rand.New(rand.NewPCG(s.Seed, uint64(n))), prov: prov, errs: errs,
		turns: s.TurnsPerConversation, dropP: s.DropProbability, timeout: s.TurnTimeout}, nil
}

// loop runs conversations until ctx ends, finishing the turn under way.
func (m *member) loop(ctx context.Context) {
	for c := 0; ctx.Err() == nil; c++ {
		conv := &convRecord{id: fmt.Sprintf("%s-m%d-c%d", m.run, m.n, c)}
		conv.window = cursortest.NewClient(cursorAPI, m.hc, "")
		conv.window.OnMessage = m.ws.Handle
		conv.window.AppendAttempts = 5
		m.convs = append(m.convs, conv)
		for t := 0; t < m.turns && ctx.Err() == nil; t++ {
			rec := &turnRecord{conv: conv.id, n: t}
			conv.turns = append(conv.turns, rec)
			m.turn(ctx, conv, rec)
		}
	}
}

// turn runs one turn as Cursor does: RunSSE and the run request on a new
// request id; when the stream breaks, first the same RunSSE again (the
// server replays the turn's frames; up to four times while it answers
// unavailable), then a resume action with the latest checkpoint on a new
// request id, a few times, until turn_ended arrives.
func (m *member) turn(ctx context.Context, conv *convRecord, rec *turnRecord) {
	// Each turn has its own deadline, independent of the run's, so that
	// the last turns finish after the run's time is up.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
	defer cancel()
	action := cursortest.UserMessageAction(fmt.Sprintf("%s-t%d", conv.id, rec.n), userText(conv.id, rec.n))
	ended := &endSeen{}
	// fresh is the conversation's window on a new request id.
	fresh := func() *cursortest.Client {
		c := conv.window.WithRequestID(newRequestID(m.rng))
		c.OnMessage = ended.wrap(m.ws.Handle)
		return c
	}
	abandoned := conv.window.Abandoned()
	defer func() { rec.abandoned = conv.window.Abandoned() - abandoned }()
	cl := fresh()
	rec.requestID = cl.RequestID
	sent := time.Now()
	drop := time.Duration(0)
	if m.rng.Float64() < m.dropP {
		drop = time.Duration(100+m.rng.IntN(1400)) * time.Millisecond
	}
	outcome := m.attempt(ctx, cl, cursortest.Request(conv.id, m.model, action, conv.window.Checkpoint()), drop)
	if outcome == "" || !ended.at().IsZero() {
		// turn_ended arrived: the turn is done for the client, even if
		// the stream broke in the linger after it.
		if outcome != "" {
			m.errs.add("after turn_ended: " + outcome)
		}
		rec.completed = true
		if pt, _ := m.prov.providerTime(conv.id, rec.n); !ended.at().IsZero() {
			rec.added = ended.at().Sub(sent) - pt
		}
		return
	}
	failed := time.Now()
	defer func() {
		if rec.completed && !ended.at().IsZero() {
			rec.recovery = ended.at().Sub(failed)
		}
	}()
	rec.dropped = outcome == "dropped by the harness"
	rec.failures = append(rec.failures, outcome)
	m.errs.add(outcome)
	// again runs one more attempt on c; it reports whether the turn
	// completed, else records the failure under label.
	again := func(label string, c *cursortest.Client, first *agentv1.AgentClientMessage) bool {
		start := time.Now()
		outcome = m.attempt(ctx, c, first, 0)
		rec.steps = append(rec.steps, step{what: strings.TrimSuffix(label, ": "), took: time.Since(start), outcome: outcome})
		if outcome == "" || !ended.at().IsZero() {
			rec.completed = true
			return true
		}
		rec.failures = append(rec.failures, label+outcome)
		m.errs.add(label + outcome)
		return false
	}
	// The run request never reached Keygate (the RunSSE did not open, or
	// the opening append failed): there is no turn to reconnect to or
	// resume, so the client sends the user's message again, as it retries
	// a request that failed, on a new request id.
	for tries := 1; unsent(outcome) && tries <= 4 && ctx.Err() == nil; tries++ {
		rec.pause(time.Duration(tries) * 250 * time.Millisecond)
		cl = fresh()
		if again("resend: ", cl, cursortest.Request(conv.id, m.model, action, conv.window.Checkpoint())) {
			return
		}
	}
	sameID := 0
	for rec.resumes < 8 && ctx.Err() == nil {
		rec.resumes++
		// The same request id first: the run may still live and replay.
		// Again, after a pause, while the server answers unavailable: it
		// asks the client to retry (a draining replica, an owner whose
		// lease has not moved yet), and the turn may not have started.
		if sameID == 0 || (sameID < 4 && outcome == "stream ended with "+connect.CodeUnavailable.String()) {
			if sameID > 0 {
				rec.pause(time.Duration(sameID) * 250 * time.Millisecond)
			}
			sameID++
			if again("reconnect: ", cl, nil) {
				return
			}
			continue
		}
		rec.pause(time.Duration(rec.resumes) * 200 * time.Millisecond)
		if again("resume: ", fresh(), cursortest.Request(conv.id, m.model, cursortest.ResumeAction(), conv.window.Checkpoint())) {
			return
		}
	}
	m.errs.add("turn given up")
}

// attempt opens RunSSE for cl's request id, sends first when not nil, and
// waits for the stream's end; after drop (when > 0) it cuts the stream as
// a network would. It returns "" when turn_ended arrived and the stream
// ended cleanly, else the kind of failure.
func (m *member) attempt(ctx context.Context, cl *cursortest.Client, first *agentv1.AgentClientMessage, drop time.Duration) string {
	st, err := cl.Subscribe(ctx)
	if err != nil {
		return "open RunSSE: " + classify(err)
	}
	defer st.Close()
	if first != nil {
		if err := cl.Send(ctx, first); err != nil {
			return "send run request: " + classify(err)
		}
	}
	var cut <-chan time.Time
	if drop > 0 {
		cut = time.After(drop)
	}
	// A live turn sends a heartbeat at least every 5 s; a stream silent
	// for longer is dead to the client, as to Cursor.
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	seen, quiet := 0, time.Now()
wait:
	for {
		select {
		case <-st.Done():
			break wait
		case <-cut:
			if sawTurnEnded(st) {
				<-st.Done()
				break wait
			}
			return "dropped by the harness"
		case <-ctx.Done():
			return "turn timed out"
		case <-tick.C:
			if n := len(st.Messages()); n != seen {
				seen, quiet = n, time.Now()
			} else if time.Since(quiet) > streamIdle {
				return "stream silent"
			}
		}
	}
	switch {
	case st.EndError() != nil:
		return "stream ended with " + st.EndError().Code().String()
	case !st.Ended():
		return "stream broken: " + classify(st.ReadError())
	case !sawTurnEnded(st):
		return "stream ended without turn_ended"
	}
	return ""
}

// unsent reports whether an attempt failed before its run request was
// taken: the RunSSE did not open, or the opening append failed.
func unsent(outcome string) bool {
	return strings.HasPrefix(outcome, "open RunSSE: ") || strings.HasPrefix(outcome, "send run request: ")
}

func sawTurnEnded(st *cursortest.Stream) bool {
	for _, msg := range st.Messages() {
		if msg.GetInteractionUpdate().GetTurnEnded() != nil {
			return true
		}
	}
	return false
}

// endSeen notes when turn_ended first arrived on a stream.
type endSeen struct {
	mu sync.Mutex
	t  time.Time
}

func (e *endSeen) wrap(next func(context.Context, *agentv1.AgentServerMessage, cursortest.Sender) error) func(context.Context, *agentv1.AgentServerMessage, cursortest.Sender) error {
	return func(ctx context.Context, msg *agentv1.AgentServerMessage, reply cursortest.Sender) error {
		if msg.GetInteractionUpdate().GetTurnEnded() != nil {
			e.mu.Lock()
			if e.t.IsZero() {
				e.t = time.Now()
			}
			e.mu.Unlock()
		}
		return next(ctx, msg, reply)
	}
}

func (e *endSeen) at() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.t
}

// classify names an error by kind, without the addresses and ids that
// would make every occurrence its own kind.
func classify(err error) string {
	if err == nil {
		return "no error"
	}
	var ce *connect.Error
	switch {
	case errors.As(err, &ce):
		return ce.Code().String()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected EOF"
	case errors.Is(err, io.EOF):
		return "EOF"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	case strings.Contains(err.Error(), "frame truncated"):
		return "cut mid-frame"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	}
	return "other (" + digits.ReplaceAllString(lastPart(err.Error()), "N") + ")"
}

var digits = regexp.MustCompile(`[0-9]+`)

// lastPart is the innermost cause of a wrapped error's text.
func lastPart(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// newRequestID is a random UUID-shaped request id, as Cursor sends.
func newRequestID(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
}
