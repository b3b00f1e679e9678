package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/provider/protocol"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// Chunk buffering of detailed mode: flush after this many chunks or bytes.
const (
	flushChunks = 32
	flushBytes  = 256 << 10
)

// recording keeps one call's record in step with the call. Its methods are
// called from the goroutine that reads the stream; with no recorder they
// only keep the value.
type recording struct {
	rec      callrecord.Record
	recorder ports.CallRecorder
	// save runs one recorder operation under a context detached from the
	// call's cancellation and logs its failure.
	save       func(op string, f func(ctx context.Context) error)
	chunks     []callrecord.Chunk
	chunkBytes int
	seq        int
	now        func() time.Time
}

func (c *Client) startRecording(ctx context.Context, call ports.ModelCall, reqBytes int64) *recording {
	req := call.Request
	r := &recording{now: c.now, recorder: c.recorder, rec: callrecord.Record{
		CallID: call.CallID, RunID: call.RunID, ConversationID: call.ConversationID,
		ProviderCallIndex: call.ProviderCallIndex, Kind: call.Kind.Effective(), Client: call.Client, UserID: callerID(ctx),
		Model: callrecord.ModelSnapshot{
			ProviderKind: call.Endpoint.Kind, RequestURL: redactURL(call.Endpoint.URL, call.Endpoint.APIKey),
			ModelID: req.Model, ReasoningEffort: req.Reasoning.Effort, ServiceTier: req.ServiceTier,
			MessageCount: len(req.Messages), ToolCount: len(req.Tools),
		},
		Route:        call.Route,
		Status:       callrecord.StatusRunning,
		Timing:       callrecord.Timing{RequestStarted: c.now()},
		RequestBytes: reqBytes,
		Detailed:     c.recorder != nil && c.detailed != nil && c.detailed(),
	}}
	if c.recorder == nil {
		return r
	}
	// The record must still be written when the call's context is cancelled:
	// that is exactly when it becomes "cancelled".
	detached := context.WithoutCancel(ctx)
	log := c.log.With(zap.String("call_id", call.CallID))
	save := func(op string, f func(ctx context.Context) error) {
		if err := f(detached); err != nil {
			log.Warn("record provider call", zap.String("op", op), zap.Error(err))
		}
	}
	// The start is written while the request goes out, not before: it is a
	// store write on the path to the first token. Every later write of the
	// record waits for it, so the recorder still sees Start first.
	rec, started := r.rec, make(chan struct{})
	go func() {
		defer close(started)
		save("start", func(ctx context.Context) error { return c.recorder.Start(ctx, rec) })
	}()
	r.save = func(op string, f func(ctx context.Context) error) {
		<-started
		save(op, f)
	}
	return r
}

// callerID is the user the call is made for: the identity of the turn
// (identity.FromContext), or "" outside a user's turn.
func callerID(ctx context.Context) string {
	if who, ok := identity.FromContext(ctx); ok {
		return who.UserID
	}
	return ""
}

// maskedHeaderValue stands in for the value of a custom header in a
// recorded request.
const maskedHeaderValue = "••••••"

// request records the request of a detailed call without credentials:
// the custom headers (custom) are sealed like keys where they are stored,
// so a record keeps their names only.
func (r *recording) request(req *http.Request, body []byte, apiKey string, custom map[string]string) {
	if r.save == nil || !r.rec.Detailed {
		return
	}
	cr := callrecord.Request{Method: req.Method, URL: redactURL(req.URL.String(), apiKey),
		Body: append([]byte(nil), body...)}
	masked := make(map[string]bool, len(custom))
	for name := range custom {
		masked[http.CanonicalHeaderKey(name)] = true
	}
	for name, values := range req.Header {
		if callrecord.SensitiveHeader(name) {
			continue
		}
		for _, v := range values {
			if masked[http.CanonicalHeaderKey(name)] {
				v = maskedHeaderValue
			}
			cr.Headers = append(cr.Headers, callrecord.Header{Name: name, Value: scrub(v, apiKey)})
		}
	}
	sort.Slice(cr.Headers, func(i, j int) bool { return cr.Headers[i].Name < cr.Headers[j].Name })
	callID := r.rec.CallID
	r.save("request", func(ctx context.Context) error { return r.recorder.Request(ctx, callID, cr) })
}

func (r *recording) headers(at time.Time, status int) {
	r.rec.HTTPStatus = status
	r.rec.Timing.ResponseHeaders = at
}

func (r *recording) firstEvent(at time.Time) { r.rec.Timing.FirstEvent = at }
func (r *recording) firstText(at time.Time)  { r.rec.Timing.FirstText = at }
func (r *recording) event()                  { r.rec.EventCount++ }

func (r *recording) usage(u *llm.Usage) {
	if u != nil {
		c := *u
		r.rec.Usage = &c
	}
}

func (r *recording) meta(d protocol.Decoder) {
	r.rec.Model.ResponseID, r.rec.Model.ResponseModel = d.Meta()
}

// chunk keeps one raw read of a detailed call.
func (r *recording) chunk(p []byte) {
	r.rec.ResponseBytes += int64(len(p))
	if r.save == nil || !r.rec.Detailed || len(p) == 0 {
		return
	}
	r.chunks = append(r.chunks, callrecord.Chunk{Seq: r.seq, Offset: r.now().Sub(r.rec.Timing.RequestStarted),
		Data: append([]byte(nil), p...)})
	r.seq++
	r.chunkBytes += len(p)
	if len(r.chunks) >= flushChunks || r.chunkBytes >= flushBytes {
		r.flush()
	}
}

func (r *recording) flush() {
	if r.save == nil || len(r.chunks) == 0 {
		return
	}
	chunks, callID := r.chunks, r.rec.CallID
	r.chunks, r.chunkBytes = nil, 0
	r.save("chunks", func(ctx context.Context) error { return r.recorder.Chunks(ctx, callID, chunks) })
}

func (r *recording) complete(at time.Time, finish llm.FinishReason, d protocol.Decoder) {
	r.meta(d)
	if rec, err := r.rec.Complete(at, finish); err == nil {
		r.store(rec)
	}
}

// filtered finishes the record of an answer the provider's content filter
// blocked.
func (r *recording) filtered(at time.Time, hits []llm.FilterHit, d protocol.Decoder) {
	r.meta(d)
	if rec, err := r.rec.Filtered(at, hits); err == nil {
		r.store(rec)
	}
}

// end finishes the record from the error that ended the call.
func (r *recording) end(at time.Time, err error) {
	var perr *llm.ProviderError
	var rec callrecord.Record
	var ferr error
	switch {
	case errors.As(err, &perr):
		rec, ferr = r.rec.Fail(at, perr.Class, perr.Message)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		rec, ferr = r.rec.Cancel(at)
	default:
		rec, ferr = r.rec.Fail(at, 0, err.Error())
	}
	if ferr == nil {
		r.store(rec)
	}
}

func (r *recording) cancel(at time.Time) {
	if rec, err := r.rec.Cancel(at); err == nil {
		r.store(rec)
	}
}

func (r *recording) fail(at time.Time, perr *llm.ProviderError) { r.end(at, perr) }

func (r *recording) store(rec callrecord.Record) {
	r.rec = rec
	r.flush()
	if r.save != nil {
		r.save("finish", func(ctx context.Context) error { return r.recorder.Finish(ctx, rec) })
	}
}

// meter sits between the body and the SSE reader: it counts bytes, kicks
// the idle watchdog and hands raw chunks to the recording.
type meter struct {
	r   io.Reader
	dog *watchdog
	rec *recording
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		m.dog.kick()
		m.rec.chunk(p[:n])
	}
	return n, err
}
