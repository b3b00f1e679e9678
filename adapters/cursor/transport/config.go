package transport

import "time"

// Config holds the timing and size limits of a Registry. Zero fields take
// the defaults named on each field.
type Config struct {
	// RouteWait bounds how long an overtaking append or an early RunSSE waits
	// for the request id's opening append. Default 30 s.
	RouteWait time.Duration
	// OrphanGrace is how long a transport without any subscriber survives
	// before its run is cancelled. Default 30 s.
	OrphanGrace time.Duration
	// Linger keeps the transport open after a successful turn for another
	// action on the same request id, before the end-of-stream {}. Default 2 s.
	Linger time.Duration
	// Heartbeat is the idle interval after which a subscriber is sent an
	// interaction_update.heartbeat. Default 5 s.
	Heartbeat time.Duration
	// Retain keeps an ended transport so that a late (re)subscriber still gets
	// the full replay and the end-of-stream frame. Default 60 s.
	Retain time.Duration
	// MaxPending bounds the out-of-order appends buffered per request id.
	// Default 1024.
	MaxPending int
	// GapWait bounds how long appends buffered behind a missing seqno
	// wait for it. Then the missing seqnos are skipped: the buffered
	// appends are released in order, and a skipped seqno that still
	// arrives is released when it does (out of order, never dropped). A
	// client whose stream was cut while an append was on its way may
	// never send that seqno again; without the bound, everything it sent
	// after it (its answers to the replayed stream included) waited for it
	// for good. Default 3 s.
	GapWait time.Duration
	// MaxHeldBytes bounds the client bytes the registry holds for one
	// caller: appends buffered out of order, released appends its runs
	// have not read yet, appends waiting for their request id's opening
	// append, and upstream marks. Default 64 MiB: four appends of the
	// largest BidiAppend message, while a run that reads its inbox keeps
	// next to nothing held.
	MaxHeldBytes int64
	// MaxHeldBytesTotal bounds the same for all callers together. Default
	// 256 MiB.
	MaxHeldBytesTotal int64
	// MaxUnreadBytes bounds how far a turn's output may run ahead of its
	// slowest connected subscriber: beyond it the turn waits for the
	// client to read (and so reads its provider no further ahead).
	// Default 1 MiB.
	MaxUnreadBytes int64
	// MaxUnreadWait bounds one such wait; a subscriber that reads nothing
	// for this long no longer holds the turn back. Default 30 s.
	MaxUnreadWait time.Duration
	// MaxReplayBytes bounds the replay of one stream: once a turn has
	// sent more, the frames every connected subscriber has read are
	// released and a RunSSE that attaches later cannot get the stream
	// from its start; it gets the end-of-stream error ErrReplayLost
	// (unavailable), and the client resumes from its checkpoint.
	// Default 4 MiB.
	MaxReplayBytes int64
	// ReplayAfterEnd is how long an ended stream that its subscribers
	// have read to its end keeps its replay (a RunSSE waiting to fall
	// back on it keeps it until it has); then its frames are released
	// and a later RunSSE gets ErrReplayLost. A client that read the end
	// has the stream; the wait covers one whose connection broke as the
	// end went out and that comes back at once. Default 1 s.
	ReplayAfterEnd time.Duration
	// UpstreamIdle is how long the mark of a turn routed to Cursor survives
	// without an append or an attached relay; a timer forgets it then.
	// Default 10 minutes.
	UpstreamIdle time.Duration
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.RouteWait, 30*time.Second)
	def(&c.OrphanGrace, 30*time.Second)
	def(&c.Linger, 2*time.Second)
	def(&c.Heartbeat, 5*time.Second)
	def(&c.Retain, 60*time.Second)
	def(&c.UpstreamIdle, 10*time.Minute)
	def(&c.MaxUnreadWait, 30*time.Second)
	def(&c.ReplayAfterEnd, time.Second)
	def(&c.GapWait, 3*time.Second)
	if c.MaxReplayBytes <= 0 {
		c.MaxReplayBytes = 4 << 20
	}
	if c.MaxUnreadBytes <= 0 {
		c.MaxUnreadBytes = 1 << 20
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 1024
	}
	if c.MaxHeldBytes <= 0 {
		c.MaxHeldBytes = 64 << 20
	}
	if c.MaxHeldBytesTotal <= 0 {
		c.MaxHeldBytesTotal = 256 << 20
	}
	return c
}
