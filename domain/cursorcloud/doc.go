// Package cursorcloud holds what Keygate knows about the traffic it passes
// to Cursor's own service: which routes of the Cursor client's schema carry
// code and which only metadata (Classify, the embedded table routes.txt),
// the organisation's policy for that traffic (Policy: allow, metadata or
// deny), the decision for one request (Decide), and the counts a ledger
// keeps of it (Usage, DayUsage).
//
// The table is data, not code: one line per RPC, every method of the
// schema listed, so that a newer schema with a method nobody classified
// fails cmd/protoextract/schema's spec instead of passing silently; a path
// that is not in the table (a route of a newer client, a non-RPC path) is
// code, except the few plain-HTTP account paths the client signs in
// and shows billing with (restMetadata). Whether Keygate serves a route itself is not in the table: it is
// whatever the Cursor adapter mounts at run time (ClassServed, given by the
// caller's route predicate), so routes added later need no edit here.
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O: the table is compiled into the binary, adapters/upstream applies
// the decision before dialling Cursor, and app/cloudledger keeps the counts.
package cursorcloud
