package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
)

// relay is the floor of any gateway: an HTTP server that forwards each
// request to the fake provider and copies the SSE answer back event by
// event, flushing after each, without decoding anything. Measured like the
// direct path, it shows what one more loopback hop costs on this machine,
// so Keygate's own share is Keygate − relay.
type relay struct {
	srv      *httptest.Server
	upstream string
	client   *http.Client
}

func newRelay(upstream string) *relay {
	r := &relay{upstream: upstream, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

func (r *relay) close() {
	r.srv.Close()
	r.client.CloseIdleConnections()
}

func (r *relay) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	up, err := http.NewRequestWithContext(req.Context(), req.Method, r.upstream+req.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	up.Header = req.Header.Clone()
	resp, err := r.client.Do(up)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	flusher := w.(http.Flusher)
	flusher.Flush()
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if _, werr := w.Write(line); werr != nil {
			return
		}
		if len(line) == 1 || err != nil { // blank line ends an event
			flusher.Flush()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
