package cursorproxy

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// errHandlerReturned: the pass-through read a request body after its
// handler had returned.
var errHandlerReturned = errors.New("request body read after its handler returned")

// heldBody is a request body that no one reads once its handler returned.
// A full-duplex pass-through needs it: the transport reads the body in
// goroutines of its own, which may outlive the handler (the answer came
// before the whole body was sent), or never read it at all (Cursor was
// unreachable), and net/http's full-duplex server then panics with
// "invalid concurrent Body.Read call" (golang/go#68560) when it drains the
// body after the handler and starts watching the connection. finish, run
// before the handler returns, refuses further reads, cuts one in flight
// and consumes what is left of the body while the handler still owns it.
type heldBody struct {
	body io.ReadCloser
	rc   *http.ResponseController

	mu       sync.Mutex
	over     bool
	inFlight sync.WaitGroup
}

func holdBody(w http.ResponseWriter, body io.ReadCloser) *heldBody {
	return &heldBody{body: body, rc: http.NewResponseController(w)}
}

func (b *heldBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.over {
		b.mu.Unlock()
		return 0, errHandlerReturned
	}
	b.inFlight.Add(1)
	b.mu.Unlock()
	defer b.inFlight.Done()
	return b.body.Read(p)
}

// Close is the transport's: the handler's finish closes the real body.
func (b *heldBody) Close() error { return nil }

// finish ends the body's use before the handler returns: no read after it,
// a read in flight cut, and the rest of the body consumed (net/http reads
// at most 256 KiB of it, else closes the connection after the answer).
func (b *heldBody) finish(w http.ResponseWriter) {
	b.mu.Lock()
	b.over = true
	b.mu.Unlock()
	done := make(chan struct{})
	go func() { b.inFlight.Wait(); close(done) }()
	for cut := false; ; {
		select {
		case <-done:
			_ = b.body.Close()
			return
		case <-time.After(cutRetry):
		}
		if !cut {
			// The rest of the body is lost: the connection must not
			// carry another request (ignored once the answer began).
			w.Header().Set("Connection", "close")
			cut = true
		}
		// Again until the read returns: boundedBody may have set its own
		// deadline over this one.
		_ = b.rc.SetReadDeadline(time.Now())
	}
}

// cutRetry is how long finish waits for a read in flight before cutting
// it, and between attempts.
const cutRetry = 10 * time.Millisecond
