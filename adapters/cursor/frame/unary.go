package frame

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
)

// DefaultReadTimeout bounds reading one request body unless configured
// otherwise. A body of DefaultMaxSize still arrives over a 5 Mbit/s uplink;
// a client that trickles slower than that holds a connection and a
// goroutine for nothing.
const DefaultReadTimeout = time.Minute

// ErrSlowBody reports a request body that did not arrive within its read
// timeout.
var ErrSlowBody = errors.New("request body not received in time")

// Limits bound what an inbound route reads from a client.
type Limits struct {
	// MaxSize bounds the body and every payload in it, as sent and once
	// inflated (<= 0: DefaultMaxSize).
	MaxSize int64
	// ReadTimeout bounds reading the whole body, from the handler's start
	// (<= 0: DefaultReadTimeout). It ends once the body is read, so a long
	// response stream is never cut by it.
	ReadTimeout time.Duration
	// Inflater runs every inflation; nil inflates without a cap (tests).
	Inflater *Inflater
}

func (l Limits) withDefaults() Limits {
	if l.MaxSize <= 0 {
		l.MaxSize = DefaultMaxSize
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	return l
}

// ReadBody reads r's body as it came, up to lim.MaxSize bytes plus an
// envelope header, within lim.ReadTimeout: it sets the connection's read
// deadline for the body and clears it once the body is read. It fails with
// *TooLargeError or ErrSlowBody (wrapped).
func ReadBody(w http.ResponseWriter, r *http.Request, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	rc := http.NewResponseController(w)
	// A writer that cannot set deadlines (a test recorder) reads unbounded
	// in time; the size bound still holds.
	timed := rc.SetReadDeadline(time.Now().Add(lim.ReadTimeout)) == nil
	limit := lim.MaxSize + HeaderSize
	raw, err := readAll(io.LimitReader(r.Body, limit+1), r.ContentLength)
	switch {
	case err != nil && isTimeout(err):
		return nil, fmt.Errorf("%w (%s, %d bytes so far): %w", ErrSlowBody, lim.ReadTimeout, len(raw), err)
	case err != nil:
		return nil, fmt.Errorf("read request body: %w", err)
	case int64(len(raw)) > limit:
		// The deadline stays: the server's attempt to drain the rest of
		// the body before answering ends with it, and the connection with
		// that.
		return nil, &TooLargeError{Size: int64(len(raw)), Limit: limit}
	}
	if timed {
		// Only now: after a failed read the deadline must stay, or the
		// server would wait for the rest of the body before answering.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return raw, nil
}

// maxPresize bounds the buffer readAll makes before any byte arrived: an
// announced length costs nothing until the bytes come, so a client that
// announces the frame limit and sends nothing holds no more than this.
const maxPresize = 1 << 20

// readAll is io.ReadAll with room for a body of the announced size from
// the start (up to maxPresize): a run request's 90 KB body then takes one
// buffer instead of a dozen growing ones. A body longer than that grows it
// as its bytes arrive.
func readAll(r io.Reader, announced int64) ([]byte, error) {
	if announced < 0 {
		return io.ReadAll(r)
	}
	// One byte more, for the read that finds the end.
	b := make([]byte, 0, min(announced, maxPresize)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// UnaryBody normalises a unary request body: it removes a whole-body gzip
// Content-Encoding and a 5-byte envelope if one is present, and returns the
// bare protobuf bytes. lim.MaxSize bounds the raw and the inflated body;
// inflation goes through lim.Inflater, waiting for a slot while ctx lives.
//
// A body is taken as enveloped when its first byte is 0x00 or 0x01 and the
// length prefix matches the rest exactly. A protobuf message never starts with
// those bytes (field number 0 is invalid), so a bare body is never mistaken
// for an envelope.
func UnaryBody(ctx context.Context, body io.Reader, contentEncoding string, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	raw, err := io.ReadAll(io.LimitReader(body, lim.MaxSize+HeaderSize+1))
	if err != nil {
		return nil, fmt.Errorf("read unary body: %w", err)
	}
	return unaryPayload(ctx, raw, contentEncoding, lim)
}

// unaryPayload is UnaryBody on a body already read.
func unaryPayload(ctx context.Context, raw []byte, contentEncoding string, lim Limits) ([]byte, error) {
	if int64(len(raw)) > lim.MaxSize+HeaderSize {
		return nil, &TooLargeError{Size: int64(len(raw)), Limit: lim.MaxSize}
	}
	var err error
	switch strings.ToLower(strings.TrimSpace(contentEncoding)) {
	case "", "identity":
	case "gzip":
		if raw, err = lim.Inflater.Gunzip(ctx, raw, lim.MaxSize+HeaderSize); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unary body: unsupported content encoding %q", contentEncoding)
	}
	return unwrapEnvelope(ctx, raw, lim)
}

// DecodeBody reads and normalises a request body (ReadBody, then
// UnaryBody's unwrapping): raw is the body as it came, body the bare
// protobuf.
func DecodeBody(w http.ResponseWriter, r *http.Request, lim Limits) (raw, body []byte, err error) {
	lim = lim.withDefaults()
	if raw, err = ReadBody(w, r, lim); err != nil {
		return nil, nil, err
	}
	body, err = unaryPayload(r.Context(), raw, r.Header.Get("Content-Encoding"), lim)
	return raw, body, err
}

func unwrapEnvelope(ctx context.Context, raw []byte, lim Limits) ([]byte, error) {
	if len(raw) < HeaderSize || raw[0] > FlagCompressed {
		return raw, nil
	}
	if int(binary.BigEndian.Uint32(raw[1:HeaderSize])) != len(raw)-HeaderSize {
		return raw, nil
	}
	payload := raw[HeaderSize:]
	if raw[0]&FlagCompressed != 0 {
		return lim.Inflater.Gunzip(ctx, payload, lim.MaxSize)
	}
	return payload, nil
}

// NormalizeUnary wraps a unary Connect handler so that it accepts what the
// Cursor client may send: a gzip body and/or an enveloped body, labelled
// application/proto, application/connect+proto or not at all. The wrapped
// handler sees a bare, uncompressed application/proto body. The body is
// read within lim (size, time, inflation). Bad bodies are answered with a
// Connect invalid_argument error (resource_exhausted when too large,
// deadline_exceeded when too slow, unavailable when no inflation slot
// freed in time).
func NormalizeUnary(next http.Handler, lim Limits) http.Handler {
	lim = lim.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, body, err := DecodeBody(w, r, lim)
		if err != nil {
			WriteUnaryError(w, BodyError(err))
			return
		}
		r.Header.Del("Content-Encoding")
		// An enveloped unary body may come labelled as a stream; the handler
		// below speaks Connect unary, which wants the unary content type.
		if ct := r.Header.Get("Content-Type"); ct == "" || ct == "application/connect+proto" {
			r.Header.Set("Content-Type", "application/proto")
		}
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		r.ContentLength = int64(len(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// BodyError is the Connect error for a request body ReadBody, UnaryBody or
// DecodeBody refused.
func BodyError(err error) *connect.Error {
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return connect.NewError(connect.CodeResourceExhausted, err)
	case errors.Is(err, ErrSlowBody):
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	case errors.Is(err, ErrInflateBusy):
		return connect.NewError(connect.CodeUnavailable, err)
	}
	return connect.NewError(connect.CodeInvalidArgument, err)
}

// WriteUnaryError answers a unary call with a Connect error in JSON.
func WriteUnaryError(w http.ResponseWriter, ce *connect.Error) {
	// A client gone before its error is written needs nothing more.
	_ = connect.NewErrorWriter().Write(w, &http.Request{Header: http.Header{"Content-Type": {"application/proto"}}}, ce)
}
