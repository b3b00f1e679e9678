package auth

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/domain/access"
	"keygate/ports"
)

// Gate authenticates console and control API requests in one [Mode].
type Gate struct {
	cfg     Config
	cookies cookies
	oidc    *oidcFlow // nil unless ModeOIDC
	revoked ports.SessionRevocations
	log     *zap.Logger
}

// RevokeSessionsWith makes logout revoke the session on every replica
// (OIDC mode): a copy of the cookie stops working at once instead of at its
// expiry. Without it, logout only deletes the browser's cookie. Call it
// before serving requests.
func (g *Gate) RevokeSessionsWith(r ports.SessionRevocations) { g.revoked = r }

// New returns a gate for cfg. box seals session cookies; every replica
// must share its key. In OIDC mode New fetches the provider's discovery
// document, so the issuer must be reachable; ctx bounds that fetch.
func New(ctx context.Context, cfg Config, box ports.SecretBox, logger *zap.Logger) (*Gate, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Gate{cfg: cfg, cookies: cookies{box: box, now: time.Now}, log: logger.Named("auth")}
	if cfg.Mode == ModeOIDC {
		if g.oidc, err = newOIDCFlow(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Mode reports the gate's mode.
func (g *Gate) Mode() Mode { return g.cfg.Mode }

// Guard wraps next: an authenticated request reaches it with its
// access.Principal (and identity) on the context. Otherwise a browser
// navigation in OIDC mode is redirected to the login, and anything else
// gets 401 (not signed in) or 403 (refused: wrong peer, no role).
func (g *Gate) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, status := g.principal(r)
		switch {
		case status == http.StatusOK:
			next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
		case status == http.StatusUnauthorized && g.oidc != nil && wantsPage(r):
			http.Redirect(w, r, "/auth/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
		default:
			http.Error(w, http.StatusText(status), status)
		}
	})
}

// principal decides who r is: 200 with a principal, or 401/403.
func (g *Gate) principal(r *http.Request) (access.Principal, int) {
	switch g.cfg.Mode {
	case ModeLocal:
		return g.local(r)
	case ModeHeader:
		return g.header(r)
	default:
		p, s, err := g.cookies.session(r)
		if err != nil {
			return access.Principal{}, http.StatusUnauthorized
		}
		if g.revoked != nil {
			revoked, err := g.revoked.SessionRevoked(r.Context(), s.ID)
			if err != nil {
				g.log.Error("check session revocation", zap.Error(err))
				return access.Principal{}, http.StatusServiceUnavailable
			}
			if revoked {
				return access.Principal{}, http.StatusUnauthorized
			}
		}
		return p, http.StatusOK
	}
}

// Routes returns the authentication endpoints as net/http.ServeMux
// patterns: /auth/me always; /auth/login, /auth/callback and /auth/logout
// in OIDC mode.
func (g *Gate) Routes() map[string]http.Handler {
	routes := map[string]http.Handler{"GET /auth/me": g.Guard(http.HandlerFunc(g.me))}
	if g.oidc != nil {
		routes["GET /auth/login"] = http.HandlerFunc(g.login)
		routes["GET /auth/callback"] = http.HandlerFunc(g.callback)
		routes["POST /auth/logout"] = http.HandlerFunc(g.logout)
	}
	return routes
}

// me answers who the caller is, for the console's header.
func (g *Gate) me(w http.ResponseWriter, r *http.Request) {
	p, _ := access.FromContext(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{
		"userId": p.UserID, "name": p.Name, "role": string(p.Role), "mode": string(g.cfg.Mode),
	})
}

// wantsPage reports a browser navigation (as opposed to an API call).
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html")
}
