// Package identity names who is behind a request: the user a personal
// gateway token belongs to in company mode, or the single local user of a
// laptop install. Every conversation, run and call record is scoped by the
// [Identity] of the request that created it.
//
// Place in the hexagon: domain. Imports: the standard library. The context
// accessors live here rather than in ports or an adapter because two inbound
// adapters must share them (the Cursor proxy authenticates, the Cursor
// adapter scopes runs) and neither imports the other (the imports between
// adapters are listed in docs/architecture.md, "Adapter-to-adapter
// imports"); a value carried on a context is plain data, so it belongs with
// the value type.
package identity
