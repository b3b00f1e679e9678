package cursorproxy

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"keygate/domain/identity"
	"keygate/ports"
)

// authenticate returns the caller's identity and the gateway token it
// presented ("" on a laptop), or answers the request (407 for missing or
// wrong credentials, 503 when the authenticator failed) and returns false.
func (p *Proxy) authenticate(w http.ResponseWriter, r *http.Request) (identity.Identity, string, bool) {
	if p.opts.Auth == nil {
		return identity.Local, "", true
	}
	token := proxyToken(r.Header.Get("Proxy-Authorization"))
	if token == "" {
		challenge(w)
		return identity.Identity{}, "", false
	}
	id, err := p.opts.Auth.Authenticate(r.Context(), token)
	if err == nil {
		err = id.Validate()
	}
	switch {
	case errors.Is(err, ports.ErrNotAuthorized):
		p.log.Info("proxy credentials refused", zap.String("remote", r.RemoteAddr))
		challenge(w)
		return identity.Identity{}, "", false
	case err != nil:
		p.log.Error("authenticate proxy credentials", zap.Error(err))
		closeAfter(w)
		http.Error(w, "cannot check proxy credentials now", http.StatusServiceUnavailable)
		return identity.Identity{}, "", false
	}
	return id, token, true
}

// challenge answers 407 and names the Basic scheme, which is what Cursor's
// proxy client (and curl, and Go) send credentials from a proxy URL with.
// The connection is closed after it: a client with credentials opens a new
// one, and one without holds nothing open.
func challenge(w http.ResponseWriter) {
	w.Header().Set("Proxy-Authenticate", `Basic realm="Keygate"`)
	closeAfter(w)
	http.Error(w, "proxy credentials required: use your personal gateway token", http.StatusProxyAuthRequired)
}

// closeAfter makes the server close the client connection once the
// answer is written.
func closeAfter(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
}

// proxyToken extracts the gateway token from a Proxy-Authorization value:
// the password of Basic credentials (the user name is free, so that
// "http://anything:TOKEN@proxy" works), the user name when the password is
// empty, or a Bearer token. It returns "" when there is none.
func proxyToken(header string) string {
	scheme, value, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok {
		return ""
	}
	value = strings.TrimSpace(value)
	switch strings.ToLower(scheme) {
	case "bearer":
		return value
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return ""
		}
		user, pass, _ := strings.Cut(string(raw), ":")
		if pass != "" {
			return pass
		}
		return user
	}
	return ""
}
