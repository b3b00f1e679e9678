package auth

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"keygate/domain/access"
	"keygate/domain/identity"
)

// local serves only this machine: a loopback peer that addresses Keygate
// by a loopback name and was not forwarded by a local reverse proxy.
func (g *Gate) local(r *http.Request) (access.Principal, int) {
	if !FromThisMachine(r) {
		return access.Principal{}, http.StatusForbidden
	}
	return access.Local, http.StatusOK
}

// FromThisMachine reports whether r is a request local mode serves: a
// loopback peer that addresses Keygate by a loopback name and was not
// forwarded by a local reverse proxy (DNS rebinding and a proxy in front
// both fail it).
func FromThisMachine(r *http.Request) bool {
	return loopbackPeer(r) && loopbackHost(r) && r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}

// header believes the identity headers only from a trusted proxy, and
// only when they are unambiguous: each identity header at most once (in
// any casing), and no comma in the user id. A proxy that adds its header
// without removing the client's would otherwise let the client's copy win
// or, for groups, merge into the real ones (a member adding an admin
// group). RFC 9110 lets an intermediary fold repeated header lines into one
// comma-separated line, so a comma in the user id is refused as a
// duplicate too; the display name may hold commas ("Lovelace, Ada").
func (g *Gate) header(r *http.Request) (access.Principal, int, string) {
	peer, ok := peerAddr(r)
	if !ok || !slices.ContainsFunc(g.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(peer) }) {
		return access.Principal{}, http.StatusForbidden, ""
	}
	for _, name := range []string{g.cfg.UserHeader, g.cfg.NameHeader, g.cfg.GroupsHeader} {
		if n := headerLines(r.Header, name); n > 1 {
			return access.Principal{}, http.StatusBadRequest,
				fmt.Sprintf("ambiguous identity: %s appears %d times; the authenticating proxy must send it exactly once, replacing any copy from the client", name, n)
		}
	}
	user := strings.TrimSpace(r.Header.Get(g.cfg.UserHeader))
	if user == "" {
		return access.Principal{}, http.StatusUnauthorized, ""
	}
	if strings.Contains(user, ",") {
		return access.Principal{}, http.StatusBadRequest,
			fmt.Sprintf("ambiguous identity: %s holds several comma-separated values; the authenticating proxy must send exactly one user", g.cfg.UserHeader)
	}
	var groups []string
	if g.cfg.GroupsHeader != "" {
		for _, grp := range strings.Split(r.Header.Get(g.cfg.GroupsHeader), ",") {
			if grp = strings.TrimSpace(grp); grp != "" {
				groups = append(groups, grp)
			}
		}
	}
	g.members.record(r.Context(), user, groups)
	role, err := g.cfg.Roles.RoleFor(groups)
	if err != nil {
		return access.Principal{}, http.StatusForbidden, ""
	}
	name := strings.TrimSpace(r.Header.Get(g.cfg.NameHeader))
	if g.cfg.NameHeader == "" || name == "" {
		name = user
	}
	return access.Principal{Identity: identity.Identity{UserID: user, Name: name}, Role: role}, http.StatusOK, ""
}

// headerLines counts the lines of header name in h whatever the casing of
// their keys: net/http canonicalises what it parses, but a handler may
// also see a Header map built by other code.
func headerLines(h http.Header, name string) int {
	if name == "" {
		return 0
	}
	n := 0
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			n += len(vs)
		}
	}
	return n
}
