package bidi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/frame"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// Where Cursor's own run routes live. HeaderUpstreamURL carries the URL
// the client originally asked for (the proxy sets it on every intercepted
// request); the RoundTripper given to NewUpstream sends a request there,
// or to the request's own URL without it. Both names mirror
// adapters/upstream, which this package does not import (adapters stay
// independent; the composition root joins them).
const (
	HeaderUpstreamURL = "X-Server-Upstream-URL"
	// APIURL is the host of BidiAppend and RunSSE.
	APIURL = "https://api2.cursor.sh"
	// AgentURL is the host of the HTTP/2 AgentService/Run.
	AgentURL = "https://agentn.api5.cursor.sh"
)

var (
	// ErrNoUpstream means a turn was routed to Cursor but no upstream is
	// configured.
	ErrNoUpstream = errors.New("no upstream to Cursor is configured")
	// ErrUpstreamCut means Cursor's stream ended without an end-of-stream frame.
	ErrUpstreamCut = errors.New("cursor stream ended without end-of-stream")
)

// UpstreamStatusError means Cursor answered a relayed run route with an HTTP
// status other than 200.
type UpstreamStatusError struct{ Status int }

func (e *UpstreamStatusError) Error() string {
	return fmt.Sprintf("cursor answered HTTP %d", e.Status)
}

// notForwarded are the inbound headers a relayed request does not carry:
// hop-by-hop headers, the body's framing (the outbound body is re-sent or
// re-encoded) and the response encodings, so that Cursor answers frames
// this package can pass on under the stream headers it already wrote.
var notForwarded = []string{
	"Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding", "Connect-Accept-Encoding",
}

// Upstream relays the run routes of turns whose model is not a Keygate
// model to Cursor, unchanged.
type Upstream struct {
	rt      http.RoundTripper
	appends aiserverv1connect.BidiServiceClient
	log     *zap.Logger
}

// NewUpstream relays through rt, which must honour HeaderUpstreamURL (the
// upstream.Forwarder does). A nil rt gives a nil *Upstream: no relaying.
func NewUpstream(rt http.RoundTripper, log *zap.Logger) *Upstream {
	if rt == nil {
		return nil
	}
	return &Upstream{
		rt:      rt,
		appends: aiserverv1connect.NewBidiServiceClient(&http.Client{Transport: rt}, APIURL),
		log:     log,
	}
}

// Append forwards one BidiAppend as it came (hex data, request id, seqno
// and unknown fields) with the client's headers, and returns Cursor's
// answer; a failure is a *connect.Error naming the cause.
func (u *Upstream) Append(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	if u == nil {
		return nil, connect.NewError(connect.CodeUnavailable, ErrNoUpstream)
	}
	out := connect.NewRequest(req.Msg)
	copyHeader(out.Header(), req.Header())
	for _, h := range []string{"Content-Type", "Content-Encoding", "Connect-Protocol-Version",
		"Connect-Timeout-Ms", "Connect-Content-Encoding", "User-Agent"} {
		out.Header().Del(h)
	}
	resp, err := u.appends.BidiAppend(ctx, out)
	if err != nil {
		var ce *connect.Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, connect.NewError(connect.CodeUnavailable, fmt.Errorf("forward append to cursor: %w", err))
	}
	return resp, nil
}

// relay sends r (path and headers) with body to Cursor at base, unless r
// names its original URL, and passes Cursor's answer frame by frame into
// the stream already started on w, flushing after each. ended, when set, is
// called just before Cursor's end-of-stream frame goes out. Failures end
// the stream with a Connect error naming the cause.
func (u *Upstream) relay(w io.Writer, rc *http.ResponseController, r *http.Request, body io.Reader, size int64, base string, ended func()) {
	if u == nil {
		endWith(w, rc, connect.NewError(connect.CodeUnavailable, ErrNoUpstream))
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, base+r.URL.RequestURI(), body)
	if err != nil {
		endWith(w, rc, fmt.Errorf("build upstream request: %w", err))
		return
	}
	copyHeader(out.Header, r.Header)
	out.ContentLength = size
	resp, err := u.rt.RoundTrip(out)
	if err != nil {
		endWith(w, rc, connect.NewError(connect.CodeUnavailable, fmt.Errorf("relay %s to cursor: %w", r.URL.Path, err)))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		endWith(w, rc, connect.NewError(statusCode(resp.StatusCode), &UpstreamStatusError{Status: resp.StatusCode}))
		return
	}
	err = passFrames(r.Context(), w, rc, resp.Body, ended)
	if err != nil && r.Context().Err() == nil {
		u.log.Debug("upstream relay cut", zap.String("path", r.URL.Path), zap.Error(err))
		endWith(w, rc, connect.NewError(connect.CodeUnavailable, fmt.Errorf("relay %s from cursor: %w", r.URL.Path, err)))
	}
}

// upstreamMaxFrame bounds a frame of Cursor's own answer. Cursor's service
// is trusted as far as sizes go and may send larger KV blobs than a client
// may send Keygate, so this stays at the limit Keygate once used for both.
const upstreamMaxFrame = 64 << 20

// passFrames copies Cursor's frames to w, flushing after each, up to and
// including the end-of-stream frame. Cursor was not offered compression
// (notForwarded), and a frame that comes compressed anyway is passed on
// decompressed, since the client saw no encoding in the stream headers.
func passFrames(ctx context.Context, w io.Writer, rc *http.ResponseController, src io.Reader, ended func()) error {
	frames := frame.NewReader(src, upstreamMaxFrame)
	var buf []byte // reused across frames, which come one a token
	for {
		f, err := frames.Next(ctx)
		if errors.Is(err, io.EOF) {
			return ErrUpstreamCut
		}
		if err != nil {
			return err
		}
		if f.EndStream() && ended != nil {
			ended()
		}
		buf = frame.Append(buf[:0], f.Flags&^frame.FlagCompressed, f.Payload)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		if f.EndStream() {
			return nil
		}
	}
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, h := range notForwarded {
		dst.Del(h)
	}
}

// statusCode maps the HTTP status of a failed relay to a Connect code.
func statusCode(status int) connect.Code {
	switch status {
	case http.StatusBadRequest:
		return connect.CodeInvalidArgument
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated
	case http.StatusForbidden:
		return connect.CodePermissionDenied
	case http.StatusNotFound:
		return connect.CodeUnimplemented
	}
	return connect.CodeUnavailable
}
