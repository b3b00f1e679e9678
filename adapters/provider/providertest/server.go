package providertest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Step is one scripted action of a streamed reply. Exactly one field is set.
type Step struct {
	// Data is written and flushed as it is.
	Data []byte
	// Stall blocks until the client goes away or Release is called. A stall
	// before any Data also holds back the response headers.
	Stall bool
	// Disconnect aborts the connection without ending the body.
	Disconnect bool
}

// Reply is the scripted answer to one request.
type Reply struct {
	// Status defaults to 200.
	Status int
	Header http.Header
	// Steps are played in order; for a non-streaming reply use one Data step.
	Steps []Step
}

// Request is what the server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server is a fake provider: each request takes the next scripted reply,
// from the queue of the API key it carries when one was scripted for that
// key (EnqueueFor), else from the common queue.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []Reply
	keyed    map[string][]Reply
	requests []Request
	release  chan struct{}
	gone     chan struct{}
}

// maxRequestBody bounds the request body the fake reads: far above any
// provider request a spec sends (histories with screenshots), far below
// what a runaway client could make it hold.
const maxRequestBody = 64 << 20

// NewServer starts a fake provider on loopback. Close it when done. Like a
// real provider it bounds what it reads: a request's headers in 10 s, its
// body in bytes (maxRequestBody) and time (60 s).
func NewServer() *Server {
	s := &Server{release: make(chan struct{}), gone: make(chan struct{}, 64)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ReadHeaderTimeout = 10 * time.Second
	s.Start()
	return s
}

// Enqueue scripts the replies of the next requests, in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// EnqueueFor scripts the replies of the next requests that carry apiKey
// (see KeyOf), in order.
func (s *Server) EnqueueFor(apiKey string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyed == nil {
		s.keyed = map[string][]Reply{}
	}
	s.keyed[apiKey] = append(s.keyed[apiKey], replies...)
}

// KeyOf is the API key a request carries, as a bearer token, in x-api-key
// or in x-goog-api-key; "" when none.
func KeyOf(h http.Header) string {
	if k := h.Get("X-Api-Key"); k != "" {
		return k
	}
	if k := h.Get("X-Goog-Api-Key"); k != "" {
		return k
	}
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

// Requests returns copies of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Gone receives one value each time a stalled reply saw its client close the
// connection.
func (s *Server) Gone() <-chan struct{} { return s.gone }

// Release ends every current and future stall.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// The body's deadline is lifted once it is read: a stalled reply must
	// not see its connection time out (Gone reports the client leaving).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(60 * time.Second))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body})
	var reply Reply
	ok := false
	if q := s.keyed[KeyOf(r.Header)]; len(q) > 0 {
		reply, s.keyed[KeyOf(r.Header)], ok = q[0], q[1:], true
	} else if len(s.replies) > 0 {
		reply, s.replies, ok = s.replies[0], s.replies[1:], true
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted reply","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	wrote := false
	writeHeader := func() {
		if wrote {
			return
		}
		wrote = true
		for k, vs := range reply.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		if w.Header().Get("Content-Type") == "" {
			if status == http.StatusOK {
				w.Header().Set("Content-Type", "text/event-stream")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
		}
		w.WriteHeader(status)
	}
	flusher, _ := w.(http.Flusher)
	for _, st := range reply.Steps {
		switch {
		case st.Stall:
			if wrote {
				flusher.Flush()
			}
			select {
			case <-r.Context().Done():
				s.gone <- struct{}{}
				return
			case <-s.release:
			}
		case st.Disconnect:
			writeHeader()
			flusher.Flush()
			panic(http.ErrAbortHandler)
		default:
			writeHeader()
			w.Write(st.Data) //nolint:errcheck // a gone client shows up in the next step
			flusher.Flush()
		}
	}
	writeHeader()
}

// Stream is a 200 reply that sends body one SSE event per step, the way
// providers flush.
func Stream(body []byte) Reply {
	return Reply{Steps: Events(body)}
}

// Events splits an SSE body after each blank line, one step per event.
func Events(body []byte) []Step {
	var steps []Step
	for len(body) > 0 {
		// An event ends at a blank line: \n\n, or \r\n\r\n (Google's).
		i, n := bytes.Index(body, []byte("\n\n")), 2
		if j := bytes.Index(body, []byte("\r\n\r\n")); j >= 0 && (i < 0 || j < i) {
			i, n = j, 4
		}
		if i < 0 {
			steps = append(steps, Step{Data: body})
			break
		}
		steps = append(steps, Step{Data: body[:i+n]})
		body = body[i+n:]
	}
	return steps
}

// Status is a non-2xx reply with a JSON body and optional headers given as
// name, value pairs.
func Status(code int, body string, header ...string) Reply {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return Reply{Status: code, Header: h, Steps: []Step{{Data: []byte(body)}}}
}

// RateLimited is a 429 whose Retry-After asks for d (whole seconds).
func RateLimited(d time.Duration) Reply {
	return Status(http.StatusTooManyRequests,
		`{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limit_exceeded"}}`,
		"Retry-After", strconv.Itoa(int(d/time.Second)))
}
