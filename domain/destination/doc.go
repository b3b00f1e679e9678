// Package destination is the grammar of Keygate's outbound allow-list
// (KEYGATE_EGRESS_ALLOW, --egress-allow) and the rule saying which
// connections an entry names. An operator writes entries to let Keygate
// reach destinations its outbound policy refuses by default, such as a
// self-hosted model on a private address.
//
// Place in the hexagon: domain. It imports only the standard library, so
// that app/config validates the syntax with the very parser that
// adapters/egress matches with.
package destination
