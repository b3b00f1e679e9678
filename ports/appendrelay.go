package ports

import "context"

// AppendRelay carries client appends between replicas. Cursor holds a run's
// output stream (RunSSE) on one replica while a round-robin load balancer
// sends its appends (BidiAppend) to any replica; the replica holding the
// stream claims the run's key, and every other replica forwards the appends
// it receives for that key.
//
// Delivery is durable and ordered per key: payloads forwarded for a key are
// kept until a claim of the key takes them, so an append that arrives
// before the stream is not lost, and each payload is delivered once.
// Payloads forwarded one after another (each Forward returned before the
// next began, on any replica) are delivered in that order. Payloads
// unclaimed for long are dropped.
type AppendRelay interface {
	// Claim makes this replica the receiver of key's payloads until release
	// is called: deliver gets the payloads already waiting, then every new
	// one, never concurrently for one key and never after release returned.
	// It runs on the relay's goroutine (or inside Claim for the payloads
	// already waiting), so it must not block for long. Claiming a key this replica already
	// claims returns ErrConflict. ctx bounds only the claim itself.
	Claim(ctx context.Context, key string, deliver func(payload []byte)) (release func(), err error)

	// Forward stores payload for key's current or next claimant and wakes
	// it. It returns once the payload is stored; ctx.Err() (wrapped) on a
	// cancelled context, and then nothing was stored.
	Forward(ctx context.Context, key string, payload []byte) error
}
