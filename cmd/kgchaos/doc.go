// Command kgchaos is the soak-and-chaos harness of scale-out (issue 21):
// it builds the real keygate binary, runs several replicas of it in company
// mode on one fresh PostgreSQL database behind a round-robin TCP balancer
// of its own, and drives them with simulated Cursor clients (members with
// gateway tokens, through the proxy over HTTP/1.1: RunSSE and BidiAppend)
// running multi-turn conversations with tool rounds against a fake
// OpenAI-compatible provider, while it stops and restarts replicas at
// random (mostly SIGKILL, as a crash or the OOM killer; some SIGTERM with a
// grace period, as a rolling deploy) and cuts clients' streams mid-turn.
// The balancer health-checks /readyz as a load balancer does and sends new
// connections to ready replicas only. A client whose stream broke
// does what Cursor does: it opens RunSSE on the same request id again, and
// then resumes with its latest checkpoint on a new request id.
//
// It then checks every conversation twice, as PostgreSQL stores it and as
// the client's latest checkpoint holds it (the root messages, read from
// the client's KV store): a message of a turn the client saw complete
// that is missing is lost, any message there twice is duplicated. The
// provider logs every call by conversation, turn and round, so a round
// sampled again after its call had finished is a repeated model call.
// Added latency is a turn's time from the run request to turn_ended minus
// the provider's streaming time, for turns that completed on their first
// stream.
//
// The report is markdown on standard output (and -out FILE). The exit code
// is 1 on hard failures only: the harness could not run (build, database,
// a replica that does not start or restart), no turn completed, a panic in
// a replica's log (or a data race, with -race), or a message duplicated in
// the store (messages are stored once per id), a message of a completed
// turn missing from the store, or a provider request without a turn's user
// message, in both forms (the relay hands the appends of an owner killed
// before its first commit to the next owner, CHAOS.md). Losses and
// duplicates in the clients' checkpoints, repeated model calls and given-up turns are printed and do
// not fail: they are what issue 21's reliability work is to bring to zero,
// and a soak of a few seconds on a shared machine meets them by chance.
//
// Place in the hexagon: a command, like cmd/kgbench; it runs the keygate
// binary as a black box and reads the database through adapters/postgres
// only to check what was stored. It reuses adapters/pgtest for the
// database, adapters/cursor/cursortest for the client and
// adapters/provider/providertest for the provider's SSE.
package main
