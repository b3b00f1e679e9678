package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"
)

// UnaryBody normalises a unary request body: it removes a whole-body gzip
// Content-Encoding and a 5-byte envelope if one is present, and returns the
// bare protobuf bytes. maxSize bounds the raw and decompressed body (<= 0
// means DefaultMaxSize).
//
// A body is taken as enveloped when its first byte is 0x00 or 0x01 and the
// length prefix matches the rest exactly. A protobuf message never starts with
// those bytes (field number 0 is invalid), so a bare body is never mistaken
// for an envelope.
func UnaryBody(body io.Reader, contentEncoding string, maxSize int64) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxSize+HeaderSize+1))
	if err != nil {
		return nil, fmt.Errorf("read unary body: %w", err)
	}
	if int64(len(raw)) > maxSize+HeaderSize {
		return nil, &TooLargeError{Size: int64(len(raw)), Limit: maxSize}
	}
	switch strings.ToLower(strings.TrimSpace(contentEncoding)) {
	case "", "identity":
	case "gzip":
		if raw, err = Gunzip(raw, maxSize+HeaderSize); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unary body: unsupported content encoding %q", contentEncoding)
	}
	return unwrapEnvelope(raw, maxSize)
}

func unwrapEnvelope(raw []byte, maxSize int64) ([]byte, error) {
	if len(raw) < HeaderSize || raw[0] > FlagCompressed {
		return raw, nil
	}
	if int(binary.BigEndian.Uint32(raw[1:HeaderSize])) != len(raw)-HeaderSize {
		return raw, nil
	}
	payload := raw[HeaderSize:]
	if raw[0]&FlagCompressed != 0 {
		return Gunzip(payload, maxSize)
	}
	return payload, nil
}

// NormalizeUnary wraps a unary Connect handler so that it accepts what the
// Cursor client may send: a gzip body and/or an enveloped body, labelled
// application/proto, application/connect+proto or not at all. The wrapped
// handler sees a bare, uncompressed application/proto body. Bad bodies are answered with a
// Connect invalid_argument (resource_exhausted when too large) error.
func NormalizeUnary(next http.Handler, maxSize int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := UnaryBody(r.Body, r.Header.Get("Content-Encoding"), maxSize)
		if err != nil {
			code := connect.CodeInvalidArgument
			var tooLarge *TooLargeError
			if errors.As(err, &tooLarge) {
				code = connect.CodeResourceExhausted
			}
			WriteUnaryError(w, connect.NewError(code, err))
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

// WriteUnaryError answers a unary call with a Connect error in JSON.
func WriteUnaryError(w http.ResponseWriter, ce *connect.Error) {
	connect.NewErrorWriter().Write(w, &http.Request{Header: http.Header{"Content-Type": {"application/proto"}}}, ce)
}
