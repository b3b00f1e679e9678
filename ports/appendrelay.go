package ports

import (
	"context"
	"errors"
)

// ErrRelayFull means a Forward would take the payloads waiting for its owner, or
// for everyone, over the relay's bound in bytes; nothing was stored.
var ErrRelayFull = errors.New("append relay mailbox full")

// ErrLeaseHeld means another replica holds an unexpired lease of the run key.
var ErrLeaseHeld = errors.New("run key leased by another replica")

// ErrLateAppend means a payload for a run key whose stream ended, and which does
// not open a turn; it belongs to no turn and was not stored.
var ErrLateAppend = errors.New("append arrived after its stream ended")

// AppendRelay carries a run between replicas. Cursor holds a run's output
// stream (RunSSE) on one replica while a round-robin load balancer sends
// its appends (BidiAppend) and, after a cut, its next RunSSE to any
// replica. Exactly one replica owns a run key at a time, through a lease;
// every other replica forwards the appends it receives for the key to the
// owner and serves a RunSSE from the output the owner publishes.
//
// Leases are fenced: each lease of a key has a token greater than every
// earlier one's, and what the owner writes as the owner (its published
// output, taking the key's payloads) is refused once a newer lease exists
// or its own expired. The owner renews its lease on the relay's timer; a
// replica that dies stops renewing, its lease expires (or ends at once,
// where the relay can tell that the replica is gone), and another replica
// may take the key.
//
// Delivery is durable and ordered per key: payloads forwarded for a key are
// kept until a lease of the key takes them, so an append that arrives
// before the stream is not lost, and each payload is delivered once to a
// lease. Until a lease settles (the turn made its first commit) or is
// released, the payloads it was delivered stay in the mailbox: a lease
// that goes stale without either (its replica died between taking the
// turn and storing it) leaves them to the next lease of the key, which
// gets them again, in order, so no turn is lost with the replica that
// took it.
// Payloads forwarded one after another (each Forward returned before the
// next began, on any replica) are delivered in that order. Payloads
// unclaimed for long are dropped, on a timer of the relay's own.
//
// The mailbox is bounded in bytes: per owner (the user whose append a
// payload is) and for all owners together. A payload that would go over
// either is refused, so one user's unclaimed appends can neither fill the
// store nor make the owner of a key load more than the bound at once.
type AppendRelay interface {
	// Acquire makes this replica the owner of key until the lease is
	// released or lost. deliver gets the payloads already waiting, then
	// every new one, never concurrently for one key and never after the
	// lease ended. It runs on the relay's goroutine (or inside Acquire for
	// the payloads already waiting), so it must not block for long. It
	// fails with ErrLeaseHeld (wrapped) while another replica's lease of
	// key has not expired, and with ErrConflict when this replica already
	// holds key. ctx bounds only the acquisition itself.
	Acquire(ctx context.Context, key string, deliver func(payload []byte)) (RunLease, error)

	// Forward stores payload, owner's, for key's current or next lease
	// and wakes it. owner names the user who sent it ("" for anonymous);
	// it only counts the payload against owner's bound. opens says the
	// payload opens a turn (a seqno-0 run request). It returns once the
	// payload is stored. A payload that does not open a turn, for a key
	// whose last lease ended its stream and which no opening payload
	// followed, is late: ErrLateAppend (wrapped). ErrRelayFull (wrapped,
	// with the numbers) when the mailbox has no room for it under owner's
	// or the overall bound, and ctx.Err() (wrapped) on a cancelled
	// context. In those cases nothing was stored.
	Forward(ctx context.Context, owner, key string, payload []byte, opens bool) error

	// Follow reads key's published output after frame number after (0:
	// from the first frame), at most a bounded page of it. A read counts
	// as a watch of key for one lease period, which the owner sees
	// (RunLease.Watched): a stream served from another replica keeps the
	// run from being orphaned.
	Follow(ctx context.Context, key string, after int64) (OutputPage, error)

	// Changes wakes a reader of key's output: wake gets a value (it is
	// buffered; the relay never blocks on it) once key's output may have
	// changed since: frames or its end published, or its lease released.
	// An owner that died without a word wakes no one, and a wake may be
	// lost (a notification missed while the relay's connection was
	// down), so a reader still reads now and then without one. stop ends
	// the watch; calling it again does nothing.
	Changes(key string) (wake <-chan struct{}, stop func())
}

// RunLease is one replica's ownership of a run key (AppendRelay.Acquire).
type RunLease interface {
	// Token is the fencing token: greater than every earlier lease's of
	// the same key.
	Token() int64

	// Publish appends frames to the key's output log, numbered on from
	// the frames this lease published before (the first is 1); end, when
	// not nil, is the stream's last frame, after which nothing more is
	// published. It fails with ErrNotOwner (wrapped) and writes nothing
	// when the lease is stale: a newer lease of the key exists or this one
	// expired.
	Publish(ctx context.Context, frames [][]byte, end []byte) error

	// Watched reports whether another replica followed the key's output
	// within the last lease period (as of the last renewal).
	Watched() bool

	// Lost is closed once the lease is stale (not renewed in time, or the
	// key taken by another replica): the holder must stop acting as the
	// run's owner. It is not closed by Release.
	Lost() <-chan struct{}

	// Opened says that a turn opened on the key at its owner (an opening
	// payload that reached the owner directly): payloads that do not open
	// a turn are accepted again after an ended stream (see Release).
	Opened(ctx context.Context) error

	// Keep stores a payload, owner's, that reached this lease's replica
	// directly (not through Forward) before the lease settled, as if this
	// lease had taken it from the mailbox (opens as for Forward): Settle
	// or Release drops it, and a later lease gets it, in order, when this
	// one goes stale without either. It stores nothing on a lease that is
	// settled or no longer current.
	Keep(ctx context.Context, owner string, payload []byte, opens bool) error

	// TookOver reports that the key had a lease before this one that was
	// never released (its holder died or hung, possibly in a turn) or that
	// ended the key's stream: a stream taking the key then has its turn's
	// appends waiting already, or none are coming.
	TookOver() bool

	// Settle says that the turn this lease's payloads opened made its
	// first commit: the payloads it was delivered leave the mailbox, a
	// later lease of the key does not get them again, and later ones
	// leave it as they are delivered. On a lease no longer current it
	// does nothing.
	Settle(ctx context.Context) error

	// Release ends the lease and drops the payloads it was delivered;
	// the next Acquire of the key, on any replica, succeeds at once. ended says the stream reached its end: payloads
	// waiting for the key that do not open a turn are dropped, and later
	// ones refused as late, until one that opens a turn. Calling it again
	// does nothing.
	Release(ended bool)
}

// OutputPage is a part of a run key's published output (AppendRelay.Follow).
type OutputPage struct {
	// Frames follow the requested frame number, in order; Last is the
	// number of the last of them (the requested one when there are none).
	Frames [][]byte
	Last   int64
	// End is the stream's last frame, once published and every frame
	// before it is in Frames.
	End []byte
	// Held reports that an unexpired lease holds the key: its output may
	// go on. A key without a held lease and without End has lost its
	// owner.
	Held bool
	// Token is the fencing token of the lease whose output this is (0
	// when none was published).
	Token int64
}
