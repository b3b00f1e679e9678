package cursorproxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/ports"
)

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
	for _, token := range p.sessions.distinctTokens() {
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
// its token and user, so that revoking the token closes the keep-alive
// connection (and the request on it) and the connection counts towards the
// user's limits; it fails (*limitError) when the user is over one. Outside
// Run the connection is unknown; each request is authenticated anyway.
func (p *Proxy) trackPlain(r *http.Request, token, user string) error {
	if c, ok := r.Context().Value(clientConnKey{}).(net.Conn); ok {
		return p.sessions.admit(c, token, user)
	}
	return nil
}
