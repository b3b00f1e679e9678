// Package scim is the SCIM 2.0 endpoint identity providers (Okta, Entra ID)
// provision Keygate's users and groups through, at /scim/v2 on the main
// listener. The protocol (routes, schema validation, filters, PATCH
// parsing, list responses) is github.com/elimity-com/scim's; this package
// binds it to the provisioning use case: resources become directory
// entries, PATCH operations are applied to an entry's attributes (the
// shapes Okta and Entra ID send: path-less value maps, "False" as a
// string, capitalised ops, members[value eq "…"] removals), list queries
// are filtered with the library's validator and paged. Every request
// carries the bearer token the identity provider was configured with,
// compared in constant time; its body and its time are bounded.
//
// Place in the hexagon: inbound adapter. Imports: the standard library,
// go.uber.org/zap, github.com/elimity-com/scim (and its errors, optional
// and schema packages), github.com/scim2/filter-parser/v2 and ports.
package scim
