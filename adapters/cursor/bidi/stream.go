package bidi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"keygate/adapters/cursor/frame"
)

// Content types of the two downlinks.
const (
	ContentTypeSSE     = "text/event-stream"
	ContentTypeConnect = "application/connect+proto"
)

// startStream writes the 200 and the stream headers at once, so that the
// client sees its stream open while the server still waits for the run.
// Errors travel in the end-of-stream frame, never in the status.
func startStream(w http.ResponseWriter, contentType string) *http.ResponseController {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("Connect-Protocol-Version", "1")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush() // a failed flush shows up as a failed write below
	return rc
}

// frames is what pump reads: a subscription to a local transport, or a
// Follower of another replica's output.
type frames interface {
	// Next returns the next frame, waiting for one; io.EOF after the end.
	Next(ctx context.Context) ([]byte, error)
	// Ready reports whether Next has a frame to return without waiting.
	Ready() bool
}

// maxUnflushed is the most pump writes before it flushes while frames keep
// coming, so that a fast stream still reaches the client in steady pieces.
const maxUnflushed = 64 << 10

// pump copies a subscription to the response until the end-of-stream
// frame, a write error or ctx ends it. It flushes when the subscription has
// nothing more ready (or after maxUnflushed bytes), never while a frame
// waits in its buffer for the next: frames that are ready together (a
// turn's opening updates, tokens queued while the writer waited for a CPU)
// leave in one write, which through the proxy is one TLS record instead of
// one per frame.
func pump(ctx context.Context, w io.Writer, rc *http.ResponseController, sub frames) error {
	unflushed := 0
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(f); err != nil {
			return err
		}
		unflushed += len(f)
		if unflushed < maxUnflushed && sub.Ready() {
			continue
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		unflushed = 0
	}
}

// endWith writes an end-of-stream frame carrying err.
func endWith(w io.Writer, rc *http.ResponseController, err error) {
	_, _ = w.Write(frame.EndFrame(connectError(err)))
	_ = rc.Flush()
}

// onlyPost answers anything but POST with 405 and reports whether r may go on.
func onlyPost(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodPost {
		return true
	}
	w.Header().Set("Allow", http.MethodPost)
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}
