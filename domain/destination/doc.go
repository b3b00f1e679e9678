// Package destination is the pass-through allow-list of the company proxy:
// the host names, besides the Cursor hosts Keygate intercepts, that a
// member's editor may reach through Keygate (the extension marketplace,
// Cursor's downloads). A pattern names one host ("downloads.cursor.com"),
// or every name under a domain ("*.cursorapi.com", which does not match
// cursorapi.com itself), optionally with a port ("git.corp.example:8443");
// without one it matches only the default port of the request's scheme
// (443 for CONNECT, 80 for plain HTTP).
//
// The list decides by host NAME and port only. Which addresses a name may
// resolve to (never loopback, private or link-local ranges, never
// Keygate's own listeners) is the outbound dialer's decision, made after
// resolution, so a name on this list that resolves inward is still refused.
//
// Place in the hexagon: domain. It imports only the standard library, so
// that the configuration validates the list with the same parser the proxy
// matches with.
package destination
