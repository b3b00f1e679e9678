// Package transport keeps one transport per Cursor request id: the ordered
// inbox of its appends, the replayable log of what the server sent, the
// current run, and the id counters for execs, interaction queries and KV
// messages. RunSSE, BidiAppend and the HTTP/2 Run route (package bidi) feed
// it; the run layer above plugs in through RunHandler.
//
// Place in the hexagon: part of the Cursor inbound adapter. It owns the wire
// semantics of RunSSE and BidiAppend (ordering, idempotency, replay,
// heartbeats, orphan grace, linger; docs/cursor-protocol.md, "RunSSE and
// BidiAppend") and nothing of what a run means.
//
// Request ids are per caller (identity.FromContext): two users' turns on
// the same request id are two transports, so another user's request id is,
// to a caller, one nobody used, answered by the same code and after the
// same wait.
//
// Ordering rules, per request id (the client numbers appends 0, 1, 2, ...):
//
//   - Seqno 0 must carry a run_request naming a model (requested_model.model_id,
//     else model_details.model_id); otherwise the append fails with
//     ErrNoModel and so do appends waiting for that request id.
//   - An append that arrives before its request id has a transport waits, up
//     to Config.RouteWait, for seqno 0 (it overtook the run request), then
//     fails with ErrRouteTimeout.
//   - Seqno == next is released at once, followed by any buffered successors.
//     Seqno > next is buffered until its predecessors arrive (at most
//     Config.MaxPending per request id). Seqno < next is a stale duplicate:
//     accepted and ignored, so retries are idempotent.
//   - Gap: appends buffered behind a missing seqno wait for it at most
//     Config.GapWait; then the missing seqnos are skipped and the buffered
//     appends released. A skipped seqno that arrives later is released
//     then, out of order; after that it is a stale duplicate like the rest.
//   - Reuse: a seqno-0 run_request whose bytes differ from the opening append
//     of the current transport starts a new turn on the same request id: the
//     numbering restarts (next = 1, buffered appends of the old turn are
//     dropped) and a running turn is superseded. Identical bytes are a retry
//     of the opening append and are ignored. When the transport has already
//     ended, the new turn gets a fresh transport (fresh log, fresh counters).
//   - Late: once the transport ended, an append that does not open a turn
//     is accepted and dropped, never held for the next turn of the reused
//     request id; only a heartbeat waits, as it may overtake that turn's
//     run request.
//   - A run_request released later in the sequence supersedes the running
//     turn without restarting the numbering.
//
// An append returns as soon as its message is queued; runs never execute on
// the request's goroutine.
//
// Routing, per turn (docs/cursor-protocol.md, "Routing a turn: Keygate or
// Cursor"): with a KeygateModel
// predicate, the seqno-0 run_request decides where its turn runs. A model
// Keygate serves is Local, as above. Any other model marks the request id
// Upstream: nothing is queued or run here, Append answers Upstream for that
// append and every later one, and Subscribe hands an early or later RunSSE a
// Relay; the caller forwards both to Cursor unchanged. Appends that
// overtook the run request wait for the route as above and, when it is
// Upstream, also until the run request itself has gone to Cursor
// (OpeningForwarded), so Cursor sees it first. A live local transport whose
// request id is reused for an Upstream turn ends: {} when it lingers, the
// running turn superseded otherwise. A later seqno-0 run_request for a
// Keygate model takes the request id back. Once a relay has passed on
// Cursor's end-of-stream frame, a new RunSSE waits for the next turn, as it
// does after an ended local transport. A mark keeps a digest of its opening
// append, not the append, and a timer forgets it once it has had no append
// or relay for Config.UpstreamIdle.
//
// Held bytes, per caller: what the registry keeps of a caller's appends
// (buffered out of order, released but not yet read by the run, waiting
// for the opening append) and its upstream marks count against
// Config.MaxHeldBytes, and everyone's together against
// Config.MaxHeldBytesTotal. An append that would go over either fails with
// *OverBudgetError and is not kept; other callers are not affected by one
// caller's bound. The bytes are returned as the run reads its inbox, when
// a wait ends, when a mark is forgotten, and at the latest when the
// transport's stream ends. A wait entry goes when its last waiter stops
// waiting (signalled, timed out or cancelled), so request ids that never
// open leave nothing behind.
//
// Stream lifecycle, per transport: every frame a turn sends is kept and
// replayed from the start to each (re)subscriber. Heartbeats go live to the
// connected subscribers only: after Config.Heartbeat without output, and in
// answer to each client heartbeat. After a successful turn the transport
// lingers (Config.Linger) so that a run_request or a stand-alone
// conversation action (not a cancel) can open another turn on the same
// stream; then it writes {}. Messages a successful turn left unread in its
// inbox are handled as if they arrived after it, so a follow-up sent as the
// turn finished opens the next turn. Other client messages between turns
// are dropped. A failed turn ends the stream with its error at once. When no
// subscriber is attached for Config.OrphanGrace (counted from creation or
// from the last one leaving) the running turn is cancelled and the stream
// ends with canceled. An ended transport stays for Config.Retain; once
// every connected subscriber has read it to its end, its replay leaves out
// the KV requests (moot after the turn), and Config.ReplayAfterEnd later
// (or when the last RunSSE that waited to fall back on it has) its replay
// is released. The replay is bounded: once a turn has sent more than
// Config.MaxReplayBytes, the frames every connected subscriber has read
// are released as they go. A subscriber that attaches after its stream's
// replay was released gets none of it: its stream ends at once with
// unavailable (ErrReplayLost), and the client resumes from its
// checkpoint. Run requests whose user message carries the same request
// context bytes share one decoded RequestContext while they live. A turn's
// output runs at most Config.MaxUnreadBytes ahead of its slowest connected
// subscriber (waiting up to Config.MaxUnreadWait); the log packs frames
// into chunks.
//
// Replicas (replicas.go): a RunSSE served by another replica counts as a
// subscriber through Watch, and a Tap reads the output for it without
// counting. Abandon ends a transport another replica owns now (its turn
// cancelled, the stream ending with unavailable). Drain starts no new turn
// (an opening append fails with ErrDraining, and so do the RunSSEs and
// appends waiting for one), ends lingering streams, and lets running turns
// finish before their streams end.
package transport
