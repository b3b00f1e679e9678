package cursorproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/ports"
)

// sessions remembers which gateway token opened each open connection
// (intercepted, tunnelled or keep-alive plain HTTP), so that the
// revocation loop asks about each token once and cuts what a refused one
// opened. A connection has one token: a keep-alive connection that
// presents another one on a later request moves to it.
type sessions struct {
	mu   sync.Mutex
	open map[io.Closer]string
}

func newSessions() *sessions { return &sessions{open: map[io.Closer]string{}} }

// add records that token opened c; a laptop's empty token is not tracked.
func (s *sessions) add(c io.Closer, token string) {
	if token == "" {
		return
	}
	s.mu.Lock()
	s.open[c] = token
	s.mu.Unlock()
}

// remove forgets c (it closed, or became something tracked on its own).
func (s *sessions) remove(c io.Closer) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// tokens returns each token of an open connection once.
func (s *sessions) tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]struct{}, len(s.open))
	out := make([]string, 0, len(s.open))
	for _, t := range s.open {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// cut closes and forgets every connection token opened; it returns how
// many there were.
func (s *sessions) cut(token string) int {
	s.mu.Lock()
	var victims []io.Closer
	for c, t := range s.open {
		if t == token {
			victims = append(victims, c)
			delete(s.open, c)
		}
	}
	s.mu.Unlock()
	for _, c := range victims {
		_ = c.Close()
	}
	return len(victims)
}

// recheckLoop authenticates the tokens of open connections again every
// RecheckInterval until ctx ends. Every replica runs its own against the
// shared token store, so a revocation reaches the connections of all.
func (p *Proxy) recheckLoop(ctx context.Context) {
	t := time.NewTicker(p.opts.RecheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.recheck(ctx)
	}
}

// recheck makes one Authenticate per distinct token and cuts the
// connections of each token refused with ports.ErrNotAuthorized. Any
// other error (the store is down) cuts nothing: an outage must not end
// everyone's turns, and the token is asked about again next round.
func (p *Proxy) recheck(ctx context.Context) {
	var failed int
	var lastErr error
	for _, token := range p.sessions.tokens() {
		actx, cancel := context.WithTimeout(ctx, p.opts.RecheckInterval)
		_, err := p.opts.Auth.Authenticate(actx, token)
		cancel()
		switch {
		case errors.Is(err, ports.ErrNotAuthorized):
			n := p.sessions.cut(token)
			p.log.Info("gateway token no longer valid: its connections were cut", zap.Int("connections", n))
		case err != nil:
			failed++
			lastErr = err
		}
		if ctx.Err() != nil {
			return
		}
	}
	if failed > 0 {
		p.log.Warn("cannot recheck gateway tokens of open connections now; they stay open", zap.Int("tokens", failed), zap.Error(lastErr))
	}
}

// clientConnKey carries the proxy listener's client connection on the
// context of each request Run serves.
type clientConnKey struct{}

// trackPlain records the client connection of a plain-HTTP request under
// its token, so that revoking the token closes the keep-alive connection
// (and the request on it). Outside Run the connection is unknown; each
// request is authenticated anyway.
func (p *Proxy) trackPlain(r *http.Request, token string) {
	if c, ok := r.Context().Value(clientConnKey{}).(net.Conn); ok {
		p.sessions.add(c, token)
	}
}
