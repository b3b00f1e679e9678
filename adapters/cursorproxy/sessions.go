package cursorproxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"go.uber.org/zap"

	"keygate/domain/identity"
)

// sessions remembers which gateway token and user opened each open
// connection (intercepted, tunnelled, keep-alive or upgraded plain HTTP),
// so that the revocation loop asks about each token once and cuts what a
// refused one opened, and so that no member holds more connections or
// tokens than the limits allow (each connection costs tens of KiB, each
// distinct token an Authenticate per recheck round). A connection has one
// token: a keep-alive connection that presents another one on a later
// request moves to it.
type sessions struct {
	limits limits

	mu     sync.Mutex
	open   map[io.Closer]entry
	users  map[string]*usage
	tokens map[string]int // token → its open connections
}

// limits bound what sessions admit: connections and distinct tokens per
// user, distinct tokens in all.
type limits struct{ connsPerUser, tokensPerUser, tokens int }

type entry struct{ token, user string }

// usage is what one user holds open.
type usage struct {
	conns  int
	tokens map[string]int // token → the user's open connections with it
}

func newSessions(l limits) *sessions {
	return &sessions{limits: l, open: map[io.Closer]entry{}, users: map[string]*usage{}, tokens: map[string]int{}}
}

// limitError refuses a connection over a limit: the HTTP status and the
// message the member reads.
type limitError struct {
	status int
	reason string
}

func (e *limitError) Error() string { return e.reason }

// admit records that user opened c with token, or returns a *limitError
// when that would take user over a limit (or the proxy over its token
// limit). A laptop's empty token is neither tracked nor limited.
func (s *sessions) admit(c io.Closer, token, user string) error {
	if token == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.open[c]; ok {
		if old == (entry{token, user}) {
			return nil
		}
		s.dropLocked(c, old)
	}
	u := s.users[user]
	if u == nil {
		u = &usage{tokens: map[string]int{}}
	}
	switch {
	case u.conns >= s.limits.connsPerUser:
		return &limitError{status: http.StatusTooManyRequests, reason: fmt.Sprintf("you have %d connections open through "+
			"Keygate's proxy, the most one member may hold at once: close editor windows or agents you do not use", u.conns)}
	case u.tokens[token] == 0 && len(u.tokens) >= s.limits.tokensPerUser:
		return &limitError{status: http.StatusTooManyRequests, reason: fmt.Sprintf("you have connections open through "+
			"Keygate's proxy with %d different gateway tokens, the most one member may use at once: use one token per machine", len(u.tokens))}
	case s.tokens[token] == 0 && len(s.tokens) >= s.limits.tokens:
		return &limitError{status: http.StatusServiceUnavailable, reason: "Keygate's proxy is serving as many different " +
			"gateway tokens as it may at once: try again in a minute"}
	}
	s.users[user] = u
	u.conns++
	u.tokens[token]++
	s.tokens[token]++
	s.open[c] = entry{token, user}
	return nil
}

// remove forgets c (it closed, or became something tracked on its own).
func (s *sessions) remove(c io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.open[c]; ok {
		s.dropLocked(c, e)
	}
}

func (s *sessions) dropLocked(c io.Closer, e entry) {
	delete(s.open, c)
	if u := s.users[e.user]; u != nil {
		u.conns--
		if u.tokens[e.token]--; u.tokens[e.token] <= 0 {
			delete(u.tokens, e.token)
		}
		if u.conns <= 0 {
			delete(s.users, e.user)
		}
	}
	if s.tokens[e.token]--; s.tokens[e.token] <= 0 {
		delete(s.tokens, e.token)
	}
}

// distinctTokens returns each token of an open connection once.
func (s *sessions) distinctTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.tokens))
	for t := range s.tokens {
		out = append(out, t)
	}
	return out
}

// cut closes and forgets every connection token opened; it returns how
// many there were.
func (s *sessions) cut(token string) int {
	s.mu.Lock()
	var victims []io.Closer
	for c, e := range s.open {
		if e.token == token {
			victims = append(victims, c)
			s.dropLocked(c, e)
		}
	}
	s.mu.Unlock()
	for _, c := range victims {
		_ = c.Close()
	}
	return len(victims)
}

// slot stands for a connection admitted before it exists (a CONNECT is
// admitted before it is answered, so that a refusal is an HTTP answer):
// bind gives it the connection; closing it before then (revocation) makes
// bind close the connection instead.
type slot struct {
	mu     sync.Mutex
	c      io.Closer
	closed bool
}

func (s *slot) Close() error {
	s.mu.Lock()
	s.closed = true
	c := s.c
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}

// bind attaches c; false (and c closed) when the slot was closed already.
func (s *slot) bind(c io.Closer) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return false
	}
	s.c = c
	s.mu.Unlock()
	return true
}

// refuseOverLimit answers a connection refused by a limit (429 for a
// member's own, 503 for the proxy's) and closes it.
func (p *Proxy) refuseOverLimit(w http.ResponseWriter, id identity.Identity, err error) {
	var over *limitError
	if !errors.As(err, &over) {
		over = &limitError{status: http.StatusServiceUnavailable, reason: "cannot admit the connection now"}
	}
	p.log.Warn("proxy connection refused over a limit", zap.String("user_id", id.UserID), zap.Int("status", over.status),
		zap.String("reason", over.reason))
	closeAfter(w)
	http.Error(w, over.reason, over.status)
}
