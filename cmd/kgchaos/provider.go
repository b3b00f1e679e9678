package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"keygate/adapters/provider/providertest"
)

// marker tags a user message with its conversation and turn; the answer
// and the tool results never contain it, so the last user message that
// does names the turn a request belongs to.
var marker = regexp.MustCompile(`kgchaos turn ([a-z0-9-]+) t([0-9]+)`)

// userText is the user message of turn n of conv.
func userText(conv string, n int) string {
	return fmt.Sprintf("kgchaos turn %s t%d: read notes.txt and sum it up", conv, n)
}

// answerText is the model's final answer of turn n of conv.
func answerText(conv string, n int) string {
	return fmt.Sprintf("Answer for %s number %d: the notes are fine.", conv, n)
}

// rounds is how many tool rounds turn n makes before its answer: one or
// two, so that conversations mix both.
func rounds(n int) int { return 1 + n%2 }

// callID is the tool call of round r of turn n of conv.
func callID(conv string, n, r int) string { return fmt.Sprintf("call_%s_%d_%d", conv, n, r) }

// roundKey names one model call of a conversation: a turn's round (the
// round after the last tool round is the answer).
type roundKey struct {
	conv        string
	turn, round int
}

// call is one request the provider received.
type call struct {
	key        roundKey
	start, end time.Time
	// finished: the whole reply was written and flushed.
	finished bool
}

// provider is a faithful OpenAI Chat Completions endpoint for the harness's
// conversations: it reads the request's messages as a model would, answers
// a turn's user message and each tool result but the last with a Read call,
// and the last with the answer, streamed a few tokens at a time
// (providertest renders the SSE). It logs every call, so that a round
// sampled again after its call finished is seen on the provider's side.
type provider struct {
	srv      *httptest.Server
	tokens   int
	interval time.Duration

	mu       sync.Mutex
	calls    []*call
	repeated []roundKey
	unknown  int
	// unplaced keeps the first requests without a turn marker, for the
	// report (their shape) and -keep (their bodies).
	unplaced [][]byte
}

func newProvider(tokens int, interval time.Duration) *provider {
	p := &provider{tokens: tokens, interval: interval}
	// Bounded like a real provider: a request's headers within 10 s; the
	// body is read within a minute (and 64 MiB) by serve.
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.Config.ReadHeaderTimeout = 10 * time.Second
	p.srv.Start()
	return p
}

func (p *provider) close() { p.srv.Close() }

// chatRequest is the part of a Chat Completions request the model reads.
type chatRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// keyOf finds the turn and round a request samples: the last user message
// with a marker names the turn, the tool results after it count the
// rounds done.
func keyOf(body []byte) (roundKey, bool) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return roundKey{}, false
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		found := marker.FindAllSubmatch(m.Content, -1)
		if len(found) == 0 {
			continue
		}
		last := found[len(found)-1]
		n, _ := strconv.Atoi(string(last[2]))
		k := roundKey{conv: string(last[1]), turn: n}
		for _, after := range req.Messages[i+1:] {
			if after.Role == "tool" {
				k.round++
			}
		}
		return k, true
	}
	return roundKey{}, false
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(time.Minute))
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		return
	}
	k, ok := keyOf(body)
	if !ok {
		p.mu.Lock()
		p.unknown++
		if len(p.unplaced) < 5 {
			p.unplaced = append(p.unplaced, body)
		}
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(providertest.ChatError("invalid_request_error", "kgchaos: no turn marker in the request"))
		return
	}
	c := &call{key: k, start: time.Now()}
	p.mu.Lock()
	for _, prev := range p.calls {
		if prev.key == k && prev.finished {
			p.repeated = append(p.repeated, k)
			break
		}
	}
	p.calls = append(p.calls, c)
	p.mu.Unlock()

	turn := providertest.Turn{ID: fmt.Sprintf("chatcmpl-%s-%d-%d", k.conv, k.turn, k.round), Usage: providertest.Usage{Input: 100, Output: int64(p.tokens)}}
	if k.round < rounds(k.turn) {
		turn.Text = []string{"Let me ", "read it."}
		turn.Calls = []providertest.Call{{ID: callID(k.conv, k.turn, k.round), Name: "Read", Arguments: []string{`{"path":`, `"notes.txt"}`}}}
	} else {
		turn.Text = splitInto(answerText(k.conv, k.turn), p.tokens)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, ev := range providertest.Events(providertest.ChatSSE(turn)) {
		if i > 0 && p.interval > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(p.interval):
			}
		}
		if _, err := w.Write(ev.Data); err != nil {
			return
		}
		flusher.Flush()
	}
	p.mu.Lock()
	c.end, c.finished = time.Now(), r.Context().Err() == nil
	p.mu.Unlock()
}

// splitInto cuts s into n pieces (fewer when s is shorter), joined back
// they give s.
func splitInto(s string, n int) []string {
	if n <= 1 || len(s) <= n {
		return []string{s}
	}
	var out []string
	step := len(s) / n
	for len(s) > 0 {
		if len(s) < 2*step {
			out = append(out, s)
			break
		}
		out = append(out, s[:step])
		s = s[step:]
	}
	return out
}

// providerTime is the time the provider spent streaming the calls of turn
// n of conv, and how many calls there were.
func (p *provider) providerTime(conv string, n int) (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var d time.Duration
	calls := 0
	for _, c := range p.calls {
		if c.key.conv == conv && c.key.turn == n {
			calls++
			if c.finished {
				d += c.end.Sub(c.start)
			}
		}
	}
	return d, calls
}

// stats returns the calls received, the finished ones, and the rounds
// sampled again after a call of theirs had finished.
func (p *provider) stats() (calls, finished int, repeated []roundKey, unknown int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		if c.finished {
			finished++
		}
	}
	return len(p.calls), finished, append([]roundKey(nil), p.repeated...), p.unknown
}

// unplacedShapes describes the requests the provider could not place on a
// turn: the roles of their messages, each user message with a marker (M)
// or without (u), and the marked turns the request still names anywhere.
func (p *provider) unplacedShapes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, body := range p.unplaced {
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			out = append(out, fmt.Sprintf("a body that is not a Chat Completions request (%d bytes)", len(body)))
			continue
		}
		var roles []string
		for _, m := range req.Messages {
			r := m.Role
			if r == "user" {
				r = "u"
				if marker.Match(m.Content) {
					r = "M"
				}
			}
			roles = append(roles, r)
		}
		out = append(out, fmt.Sprintf("%d messages [%s]", len(req.Messages), strings.Join(roles, " ")))
	}
	return out
}

// saveUnplaced writes the unplaced requests' bodies into dir.
func (p *provider) saveUnplaced(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, body := range p.unplaced {
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("unplaced-request-%d.json", i)), body, 0o600)
	}
}
