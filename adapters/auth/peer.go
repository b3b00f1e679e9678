package auth

import (
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
	if !loopbackPeer(r) || !loopbackHost(r) || r.Header.Get("X-Forwarded-For") != "" || r.Header.Get("Forwarded") != "" {
		return access.Principal{}, http.StatusForbidden
	}
	return access.Local, http.StatusOK
}

// header believes the identity headers only from a trusted proxy.
func (g *Gate) header(r *http.Request) (access.Principal, int) {
	peer, ok := peerAddr(r)
	if !ok || !slices.ContainsFunc(g.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(peer) }) {
		return access.Principal{}, http.StatusForbidden
	}
	user := strings.TrimSpace(r.Header.Get(g.cfg.UserHeader))
	if user == "" {
		return access.Principal{}, http.StatusUnauthorized
	}
	var groups []string
	if g.cfg.GroupsHeader != "" {
		for _, v := range r.Header.Values(g.cfg.GroupsHeader) {
			for _, grp := range strings.Split(v, ",") {
				if grp = strings.TrimSpace(grp); grp != "" {
					groups = append(groups, grp)
				}
			}
		}
	}
	role, err := g.cfg.Roles.RoleFor(groups)
	if err != nil {
		return access.Principal{}, http.StatusForbidden
	}
	name := strings.TrimSpace(r.Header.Get(g.cfg.NameHeader))
	if g.cfg.NameHeader == "" || name == "" {
		name = user
	}
	return access.Principal{Identity: identity.Identity{UserID: user, Name: name}, Role: role}, http.StatusOK
}
