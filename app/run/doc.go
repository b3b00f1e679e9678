// Package run is the run engine: the provider- and protocol-independent
// loop model → client tools → results → next model call that makes a
// conversation survive crashes, retries, cancels, preemption by a newer
// run and a user who types while tools still run. Its rules are written
// down in docs/engine.md; the main sequence is docs/engine.md, "The main
// sequence".
//
// Place in the hexagon: app. Imports: the standard library, domain, ports
// and go.uber.org/zap (the injected logger); every rule it applies lives in
// the domain (event grammar, argument parsing and retry classification in
// domain/modelcycle, rounds in domain/toolround, projection in
// domain/projection, compaction layout and budget in domain/compaction, ids
// in domain/conversation). The engine sequences them, owns the timing
// (ports.Clock) and talks to stores and the provider through ports.
//
// # Using it
//
// Build an [Engine] with [New] and [Options], then call [Engine.Start] with
// a [PreparedRun]. Start claims the conversation (an older run is preempted:
// the store cancels it and rejects its later writes) and returns a
// [Handle]. The transport then:
//
//   - drains [Handle.Events] until it closes after [Ended]. Text, thinking
//     and tool-call events stream a model cycle; [ExecuteToolRound] asks
//     for client tool calls; [MessagesCommitted] announces a new head, and
//     when its Barrier is set the engine waits for Barrier.Ack (the
//     checkpoint is published to the client) before it continues;
//   - answers with commands, which never block: [Handle.ToolResult],
//     [Handle.InsertMessages], [Handle.BreakMessages] return a [Delivery]
//     (Applied, RunClosing while the final turn is committed, RunEnded),
//     and [Handle.Cancel] stops the run.
//
// [Engine.Shutdown] cancels every local run and waits for them to end.
//
// The event channel is bounded. A slow transport makes the engine wait;
// a cancelled run never waits for it, and cancelling the context given to
// Start ends delivery altogether.
//
// # Guarantees
//
//   - Every write is an ownership-checked, idempotent append with
//     deterministic ids (docs/engine.md, "Deterministic ids"), so any checkpoint is a
//     valid provider history and a crashed turn resumes without losing or
//     duplicating a message. A Resume action finishes the pending tool
//     round of the resumed run first and does not call the model again for
//     cycles whose output is stored.
//   - A model cycle is retried (Limits.MaxRetries, with backoff and jitter
//     within Limits.RetryBudget, never sooner than the provider's
//     Retry-After) with the identical request from the same checkpoint, and
//     the user is told of every retry at once ([ModelStatus]); a failed attempt's
//     partial output is shown but never stored, and its tool cards are
//     closed with [ToolCallFailed]. Nothing is written before a cycle
//     succeeds, so a retry never replays a dispatched tool or a commit.
//   - One cancellation (Handle.Cancel, preemption, or the Start context)
//     covers the wait for provider headers, every body read, retry waits,
//     tool rounds and commit barriers. A cancelled cycle's visible text is
//     stored as "<run>:assistant:<index>:interrupted" so the next turn sees
//     it; a resume continues after it.
//   - Automatic compaction runs before a call whose estimate (the
//     conversation's last authoritative usage plus an estimate of newer
//     messages) is over the budget, and once per run after a context-
//     overflow refusal; a failed or stalled summary call falls back to the
//     deterministic summary. The Compact action is /summarize.
//   - Usage is summed over every call of the run; the provider adapter
//     stores one call record per attempt, and the engine gives each attempt
//     its id ("<run>:<index>[:retry-N]").
//
// Commands during a summary call wait until the compaction is committed.
package run
