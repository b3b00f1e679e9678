// Package ports declares the interfaces the application needs from the outside
// world: stores, model providers, clocks, secrets. Adapters implement them;
// app depends only on them.
//
// Place in the hexagon: ports. Imports: the standard library and domain.
// Note the vocabulary: in Keygate "ports" are these driven interfaces, not
// the inbound servers (those are adapters, for example adapters/cursor).
//
// Each port is small and capability-named, one per file, and every method's
// doc comment states its contract: which sentinel it returns for not-found or
// conflict, what happens on a cancelled context, and ordering guarantees.
package ports
