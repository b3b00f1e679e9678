// Package cloudledger keeps the ledger of what went to Cursor's own
// service: every request the upstream forwarder decided (passed or
// refused, adapters/upstream's Ledger) is added to a per-day, per-user,
// per-route aggregate in memory, and the aggregates are flushed to a
// ports.CloudUsageStore every few seconds, so a busy editor costs one
// upsert per route and interval, not one write per request.
//
// Memory is bounded: at most MaxPending distinct keys wait for a flush;
// past that, counts fold into one "(overflow)" row per day and decision
// (no user), so nothing is lost from the totals. A failed flush keeps its rows for the
// next (within the same bound). Routes come in as the forwarder counts
// them: a path the classification does not list arrives as one "unlisted"
// route (cursorcloud.LedgerRoute), so clients cannot grow the key space.
//
// Place in the hexagon: use case. Imports: the standard library, domain,
// ports and go.uber.org/zap.
package cloudledger
