package upstream

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"keygate/domain/cursorcloud"
	"keygate/domain/identity"
)

// Ledger counts each request the forwarder decided, passed or refused.
// Count is called once per request: at once for a refusal, when the
// answer's body is closed or fails for a request that went to Cursor. It
// must not block (aggregate in memory).
type Ledger interface {
	Count(ctx context.Context, u cursorcloud.Usage)
}

// gate is the forwarder's transport behind the cloud policy: it classifies
// every request bound for Cursor by path, refuses (or, in deny mode,
// answers locally) before anything is dialled, so a refused body is never
// sent, and counts what passes and the bytes that move.
type gate struct {
	next   http.RoundTripper
	policy cursorcloud.Policy
	ledger Ledger
}

// maxDiscard bounds the refused body read into nothing: as much as the
// unary routes take.
const maxDiscard = 1 << 20

// discard reads a refused request's body of known, small length into
// nothing, so that the client's kept-alive connection stays usable for its
// next request (a body left unread makes the server close the connection
// after the refusal, and the client's next request on it fails). A body of
// unknown length (a live stream's uplink) or a larger one is left unread:
// its connection is closed instead.
func discard(req *http.Request) {
	if req.ContentLength > 0 && req.ContentLength <= maxDiscard {
		_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, req.ContentLength))
	}
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	route, class := cursorcloud.Classify(req.URL.Path)
	verdict := g.policy.Decide(class)
	usage := cursorcloud.Usage{UserID: userOf(req.Context()), Route: cursorcloud.LedgerRoute(route), Decision: verdict.Decision}
	if verdict.Decision == cursorcloud.Refused {
		if req.Body != nil {
			discard(req)
			_ = req.Body.Close()
		}
		g.count(req.Context(), usage)
		if verdict.Stub {
			return stubAnswer(req), nil
		}
		return refusal(req, g.policy.Refusal(route)), nil
	}
	var up *countingReader
	if req.Body != nil && req.Body != http.NoBody {
		up = &countingReader{r: req.Body}
		req = req.Clone(req.Context())
		req.Body = up
	}
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		usage.Up = up.count()
		g.count(req.Context(), usage)
		return nil, err
	}
	resp.Body = &countedBody{rc: resp.Body, ctx: req.Context(), done: func(ctx context.Context, down int64) {
		usage.Up, usage.Down = up.count(), down
		g.count(ctx, usage)
	}}
	return resp, nil
}

func (g *gate) count(ctx context.Context, u cursorcloud.Usage) {
	if g.ledger != nil {
		g.ledger.Count(ctx, u)
	}
}

// userOf is the user a request is made for ("" outside a user's request,
// for example on a laptop without identity).
func userOf(ctx context.Context) string {
	if id, ok := identity.FromContext(ctx); ok {
		return id.UserID
	}
	return ""
}

// Content types of the RPC protocols Cursor speaks.
const (
	connectStreamPrefix = "application/connect+"
	grpcPrefix          = "application/grpc"
)

// refusal is a Connect (or gRPC) permission_denied error in the form the
// request's protocol expects, so the client shows message to its user:
// an end-of-stream frame on a streaming route, grpc-status in the headers
// of a gRPC one, the JSON error of a unary one.
func refusal(req *http.Request, message string) *http.Response {
	ct := req.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, connectStreamPrefix):
		end, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "permission_denied", "message": message}})
		return answer(req, http.StatusOK, ct, endStream(end), nil)
	case strings.HasPrefix(ct, grpcPrefix):
		return answer(req, http.StatusOK, ct, nil, map[string]string{"Grpc-Status": "7", "Grpc-Message": url.PathEscape(message)})
	}
	body, _ := json.Marshal(map[string]string{"code": "permission_denied", "message": message})
	return answer(req, http.StatusForbidden, "application/json", body, nil)
}

// stubAnswer is the empty answer of any RPC: no message and a clean end
// on a streaming route, status 0 on gRPC, the empty message (every field
// at its default) on a unary one; and an empty JSON object for a
// plain-HTTP GET (the client's account paths answer JSON).
func stubAnswer(req *http.Request) *http.Response {
	ct := req.Header.Get("Content-Type")
	switch {
	case ct == "" && req.Method == http.MethodGet:
		return answer(req, http.StatusOK, "application/json", []byte("{}"), nil)
	case strings.HasPrefix(ct, connectStreamPrefix):
		return answer(req, http.StatusOK, ct, endStream([]byte("{}")), nil)
	case strings.HasPrefix(ct, grpcPrefix):
		return answer(req, http.StatusOK, ct, nil, map[string]string{"Grpc-Status": "0"})
	case strings.Contains(ct, "json"):
		return answer(req, http.StatusOK, "application/json", []byte("{}"), nil)
	}
	return answer(req, http.StatusOK, "application/proto", nil, nil)
}

// endStream is a Connect end-of-stream frame around payload.
func endStream(payload []byte) []byte {
	out := make([]byte, 5, 5+len(payload))
	out[0] = 0x02
	binary.BigEndian.PutUint32(out[1:], uint32(len(payload))) //nolint:gosec // a short JSON object
	return append(out, payload...)
}

func answer(req *http.Request, status int, contentType string, body []byte, header map[string]string) *http.Response {
	h := http.Header{"Content-Type": {contentType}, "Content-Length": {strconv.Itoa(len(body))}}
	for k, v := range header {
		h.Set(k, v)
	}
	return &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}

// countingReader counts the bytes read through it (the request body as
// sent to Cursor).
type countingReader struct {
	r  io.ReadCloser
	mu sync.Mutex
	n  int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	c.n += int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

func (c *countingReader) count() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// countedBody counts an answer's bytes and reports them once, at the
// first of EOF, a read error or Close.
type countedBody struct {
	rc   io.ReadCloser
	n    int64
	once sync.Once
	// ctx is the request's, for the ledger's count.
	ctx  context.Context //nolint:containedctx // the answer's body outlives RoundTrip
	done func(ctx context.Context, down int64)
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if err != nil {
		b.once.Do(func() { b.done(b.ctx, b.n) })
	}
	return n, err
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.done(b.ctx, b.n) })
	return b.rc.Close()
}
