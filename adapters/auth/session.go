package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

// Cookie names. The flow cookie lives only between login and callback.
const (
	SessionCookie = "kg_session"
	flowCookie    = "kg_oidc_flow"
)

// errNoSession: the request carries no valid session cookie.
var errNoSession = errors.New("no valid session")

// sessionData is the sealed content of a session cookie.
type sessionData struct {
	// ID names the session, so that logout can revoke it everywhere.
	ID      string `json:"s"`
	UserID  string `json:"u"`
	Name    string `json:"n,omitempty"`
	Role    string `json:"r"`
	Expires int64  `json:"e"`
}

// cookies seals and opens cookie values with the installation's box.
type cookies struct {
	box ports.SecretBox
	now func() time.Time
}

func (c cookies) seal(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sealed, err := c.box.Seal(raw)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

func (c cookies) open(r *http.Request, name string, v any) error {
	ck, err := r.Cookie(name)
	if err != nil {
		return errNoSession
	}
	sealed, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil {
		return errNoSession
	}
	raw, err := c.box.Open(sealed)
	if err != nil {
		return errNoSession
	}
	if json.Unmarshal(raw, v) != nil {
		return errNoSession
	}
	return nil
}

// session returns the principal of a valid, unexpired session cookie and
// the session itself. A cookie without a session id (sealed by a Keygate
// from before revocation existed) is not valid: it could not be revoked.
func (c cookies) session(r *http.Request) (access.Principal, sessionData, error) {
	var s sessionData
	if err := c.open(r, SessionCookie, &s); err != nil {
		return access.Principal{}, s, err
	}
	role := access.Role(s.Role)
	if s.ID == "" || s.UserID == "" || c.now().Unix() >= s.Expires || (role != access.Admin && role != access.Member) {
		return access.Principal{}, s, errNoSession
	}
	return access.Principal{Identity: identity.Identity{UserID: s.UserID, Name: s.Name}, Role: role}, s, nil
}

// set writes cookie name with value for ttl; ttl < 0 deletes it.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, ttl time.Duration) {
	ck := &http.Cookie{
		Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: !loopbackPeer(r) || r.TLS != nil,
	}
	if ttl < 0 {
		ck.MaxAge = -1
	} else {
		ck.MaxAge = int(ttl.Seconds())
	}
	http.SetCookie(w, ck)
}

// peerAddr is the address of the connection's peer (not of any
// forwarding header).
func peerAddr(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	// Prefix.Contains never matches an IPv4-mapped address (a dual-stack
	// listener's IPv4 peer) against an IPv4 range, so compare the plain
	// address; the trusted ranges are unmapped the same way in
	// Config.withDefaults. A zoned (link-local) peer matches no range.
	return ap.Addr().Unmap(), true
}

func loopbackPeer(r *http.Request) bool {
	a, ok := peerAddr(r)
	return ok && a.IsLoopback()
}

// loopbackHost reports whether the Host header names this machine, which
// defeats DNS rebinding against a laptop install.
func loopbackHost(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
