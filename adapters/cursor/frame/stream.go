package frame

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"
)

// NormalizeStream reads a server-stream request's body within lim (bytes,
// time, inflation through the shared Inflater) before the Connect handler
// sees it: connect-go bounds a message's size but not the time a client
// takes to send it, nor how many gzip payloads inflate at once. The
// handler gets the single request frame uncompressed. Reading the body to
// its end also lets net/http notice a client that closes the connection,
// which cancels the request's context.
func NormalizeStream(next http.Handler, lim Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := ReadBody(w, r, lim)
		if err == nil && strings.EqualFold(strings.TrimSpace(r.Header.Get("Content-Encoding")), "gzip") {
			raw, err = lim.Inflater.Gunzip(r.Context(), raw, lim.MaxSize+HeaderSize)
		}
		var f Frame
		if err == nil {
			f, err = NewReader(bytes.NewReader(raw), lim.MaxSize).Inflating(lim.Inflater).Next(r.Context())
			if errors.Is(err, io.EOF) {
				err = ErrTruncated
			}
		}
		if err != nil {
			writeStreamError(w, r, BodyError(err))
			return
		}
		body := Encode(0, f.Payload)
		r.Header.Del("Content-Encoding")
		r.Header.Del("Connect-Content-Encoding")
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		r.ContentLength = int64(len(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// writeStreamError answers a Connect stream that cannot start: 200 with
// the error in the end-of-stream frame, as Connect streams report errors.
func writeStreamError(w http.ResponseWriter, r *http.Request, ce *connect.Error) {
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "application/connect+") {
		ct = "application/connect+proto"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(EndFrame(ce))
}
