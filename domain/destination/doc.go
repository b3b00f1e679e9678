// Package destination is the grammar of the lists an operator writes to
// say where Keygate may connect, and the rules saying which connections an
// entry names:
//
//   - the outbound allow-list (KEYGATE_EGRESS_ALLOW): destinations the
//     outbound policy in adapters/egress refuses by default, such as a
//     self-hosted model on a private address, matched on the name asked
//     for or the address actually dialled ([Entry.Matches]);
//   - the company proxy's pass-through list (KEYGATE_PROXY_PASSTHROUGH): the
//     hosts, besides the Cursor hosts Keygate intercepts, that a member's
//     editor may reach through the proxy, decided by name and port only
//     ([Allowlist.Allows]). Which addresses such a name may resolve to is
//     still the outbound policy's decision, made after resolution.
//
// Place in the hexagon: domain. Imports: the standard library; so app/config
// validates both lists with the very parser the proxy and the outbound
// policy match with.
package destination
