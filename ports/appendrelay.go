package ports

import (
	"context"
	"errors"
)

// ErrRelayFull: a Forward would take the payloads waiting for its owner, or
// for everyone, over the relay's bound in bytes; nothing was stored.
var ErrRelayFull = errors.New("append relay mailbox full")

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
// unclaimed for long are dropped, on a timer of the relay's own.
//
// The mailbox is bounded in bytes: per owner (the user whose append a
// payload is) and for all owners together. A payload that would go over
// either is refused, so one user's unclaimed appends can neither fill the
// store nor make the claimant of a key load more than the bound at once.
type AppendRelay interface {
	// Claim makes this replica the receiver of key's payloads until release
	// is called: deliver gets the payloads already waiting, then every new
	// one, never concurrently for one key and never after release returned.
	// It runs on the relay's goroutine (or inside Claim for the payloads
	// already waiting), so it must not block for long. Claiming a key this replica already
	// claims returns ErrConflict. ctx bounds only the claim itself.
	Claim(ctx context.Context, key string, deliver func(payload []byte)) (release func(), err error)

	// Forward stores payload, owner's, for key's current or next claimant
	// and wakes it. owner names the user who sent it ("" for anonymous);
	// it only counts the payload against owner's bound. It returns once the
	// payload is stored; ErrRelayFull (wrapped, with the numbers) when the
	// mailbox has no room for it under owner's or the overall bound, and
	// ctx.Err() (wrapped) on a cancelled context; in both cases nothing was
	// stored.
	Forward(ctx context.Context, owner, key string, payload []byte) error
}
