package auth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/domain/access"
	accountv1 "keygate/gen/keygate/account/v1"
	"keygate/ports"
)

// Gate authenticates console and control API requests in one [Mode].
type Gate struct {
	cfg     Config
	cookies cookies
	oidc    *oidcFlow // nil unless ModeOIDC
	revoked ports.SessionRevocations
	// cuts refuses users whose access was cut; nil refuses none.
	cuts ports.Deprovisions
	// services authenticates service-account keys; nil accepts none.
	services func(ctx context.Context, key string) (access.Principal, error)
	// members records each user's groups; nil records none.
	members *groupRecorder
	// own reports a connection Keygate itself dialled; nil: none known.
	own func(peer, local netip.AddrPort) bool
	log *zap.Logger
}

// RevokeSessionsWith makes logout revoke the session on every replica
// (OIDC mode): a copy of the cookie stops working at once instead of at its
// expiry. Without it, logout only deletes the browser's cookie. Call it
// before serving requests.
func (g *Gate) RevokeSessionsWith(r ports.SessionRevocations) { g.revoked = r }

// RefuseCutWith makes the gate refuse, in header and OIDC mode, a user
// whose access was cut (deprovisioned by their identity provider): 403
// while they are blocked, and 401 for a session issued before their
// latest cut, so that signing in again is needed once they are admitted
// again. Call it before serving requests.
func (g *Gate) RefuseCutWith(c ports.Deprovisions) { g.cuts = c }

// ServiceAccountsWith makes the gate accept, on the control API's routes
// (/keygate.control.v1.*) and in every mode, a request carrying a
// service-account key as "Authorization: Bearer <key>": authenticate
// returns the account's principal, or an error for a key it refuses (401).
// A key is never accepted on the console's other routes (sign-in, tokens,
// audit, pages). Call it before serving requests.
func (g *Gate) ServiceAccountsWith(authenticate func(ctx context.Context, key string) (access.Principal, error)) {
	g.services = authenticate
}

// controlPrefix starts the control API's Connect routes.
const controlPrefix = "/keygate.control.v1."

// DistrustPeers makes the gate refuse (403), in every mode, a request whose
// peer is the local end of a connection Keygate itself dialled: own
// reports such an address (for example the outbound policy's record of
// the connections it opened). A request that reached the console through
// Keygate's own proxy or provider client then cannot borrow the trust of
// the address it comes from, even when that address is a trusted proxy
// range (a sidecar on 127.0.0.1, a pod inside 10/8) or loopback in local
// mode. own gets the peer and the listener's own address (both ends of the
// connection, so a client whose source port happens to equal one Keygate
// dials from is not mistaken for Keygate), the peer in its plain form (an
// IPv4 peer of a dual-stack listener as IPv4) and, when that differs, as
// the listener reported it; local is invalid when the request does not
// say which listener it came in on. own must be safe for concurrent use.
// Call it before serving requests.
func (g *Gate) DistrustPeers(own func(peer, local netip.AddrPort) bool) { g.own = own }

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
		p, status, why := g.principal(r)
		switch {
		case status == http.StatusOK:
			next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
		case status == http.StatusUnauthorized && g.oidc != nil && wantsPage(r):
			http.Redirect(w, r, "/auth/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
		case why != "":
			http.Error(w, why, status)
		default:
			http.Error(w, http.StatusText(status), status)
		}
	})
}

// principal decides who r is: 200 with a principal, or 400/401/403 and,
// when the status text alone would not tell the caller what to fix, why.
func (g *Gate) principal(r *http.Request) (access.Principal, int, string) {
	if g.ownConnection(r) {
		return access.Principal{}, http.StatusForbidden, "refused: this connection was opened by Keygate itself"
	}
	if key, ok := bearer(r); ok && g.services != nil && strings.HasPrefix(r.URL.Path, controlPrefix) {
		p, err := g.services(r.Context(), key)
		if err != nil {
			if !errors.Is(err, ports.ErrNotAuthorized) {
				g.log.Error("authenticate service account", zap.Error(err))
				return access.Principal{}, http.StatusServiceUnavailable, ""
			}
			return access.Principal{}, http.StatusUnauthorized, "the service account key is unknown, revoked or expired"
		}
		return p, http.StatusOK, ""
	}
	switch g.cfg.Mode {
	case ModeLocal:
		p, status := g.local(r)
		return p, status, ""
	case ModeHeader:
		p, status, why := g.header(r)
		if status == http.StatusOK {
			return g.notCut(r, p, time.Time{})
		}
		return p, status, why
	default:
		p, s, err := g.cookies.session(r)
		if err != nil {
			return access.Principal{}, http.StatusUnauthorized, ""
		}
		if g.revoked != nil {
			revoked, err := g.revoked.SessionRevoked(r.Context(), s.ID)
			if err != nil {
				g.log.Error("check session revocation", zap.Error(err))
				return access.Principal{}, http.StatusServiceUnavailable, ""
			}
			if revoked {
				return access.Principal{}, http.StatusUnauthorized, ""
			}
		}
		return g.notCut(r, p, time.Unix(s.Expires, 0).Add(-g.cfg.SessionTTL))

	}
}

// notCut admits p unless their access was cut: 403 while they are
// blocked, 401 for a session issued (when issued is set) at or before
// their latest cut.
func (g *Gate) notCut(r *http.Request, p access.Principal, issued time.Time) (access.Principal, int, string) {
	if g.cuts == nil {
		return p, http.StatusOK, ""
	}
	blocked, cut, err := g.cuts.Cutoff(r.Context(), p.UserID)
	switch {
	case err != nil:
		g.log.Error("check whether the user's access was cut", zap.Error(err))
		return access.Principal{}, http.StatusServiceUnavailable, ""
	case blocked:
		return access.Principal{}, http.StatusForbidden, "refused: your identity provider deactivated this account"
	case !issued.IsZero() && !cut.IsZero() && !issued.After(cut):
		return access.Principal{}, http.StatusUnauthorized, ""
	}
	return p, http.StatusOK, ""
}

// bearer returns the request's bearer credential.
func bearer(r *http.Request) (string, bool) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
		return "", false
	}
	return strings.TrimSpace(key), true
}

// ownConnection reports a request on a connection Keygate dialled itself.
func (g *Gate) ownConnection(r *http.Request) bool {
	if g.own == nil {
		return false
	}
	raw, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	var local netip.AddrPort
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			local = ap
		}
	}
	plain := netip.AddrPortFrom(raw.Addr().Unmap(), raw.Port())
	return g.own(plain, local) || (plain != raw && g.own(raw, local))
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
	writeMessage(w, g.log, http.StatusOK, &accountv1.Me{UserId: p.UserID, Name: p.Name, Role: string(p.Role), Mode: string(g.cfg.Mode)})
}

// wantsPage reports a browser navigation (as opposed to an API call).
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html")
}
