package providertest

import (
	"context"
	"sync"

	"keygate/domain/callrecord"
	"keygate/ports"
)

var _ ports.CallRecorder = (*Recorder)(nil)

// Recorder is an in-memory ports.CallRecorder that keeps the port's rules:
// a record finishes once, from running, with a final status.
type Recorder struct {
	mu       sync.Mutex
	records  map[string]callrecord.Record
	requests map[string]callrecord.Request
	chunks   map[string][]callrecord.Chunk
	order    []string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{records: map[string]callrecord.Record{}, requests: map[string]callrecord.Request{},
		chunks: map[string][]callrecord.Chunk{}}
}

// Start stores a running record.
func (r *Recorder) Start(_ context.Context, rec callrecord.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.records[rec.CallID]; !ok {
		r.order = append(r.order, rec.CallID)
	}
	r.records[rec.CallID] = rec
	return nil
}

// Request stores the request of a detailed call.
func (r *Recorder) Request(_ context.Context, callID string, req callrecord.Request) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[callID] = req
	return nil
}

// Chunks appends raw response chunks.
func (r *Recorder) Chunks(_ context.Context, callID string, chunks []callrecord.Chunk) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chunks[callID] = append(r.chunks[callID], chunks...)
	return nil
}

// Finish stores the final state; ErrNotRunning if the record is not running.
func (r *Recorder) Finish(_ context.Context, rec callrecord.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, ok := r.records[rec.CallID]
	if !ok || cur.Status != callrecord.StatusRunning || !rec.Status.Final() {
		return callrecord.ErrNotRunning
	}
	r.records[rec.CallID] = rec
	return nil
}

// Record returns the stored record of callID.
func (r *Recorder) Record(callID string) (callrecord.Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.records[callID]
	return rec, ok
}

// RequestOf returns the recorded request of a detailed call.
func (r *Recorder) RequestOf(callID string) (callrecord.Request, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	req, ok := r.requests[callID]
	return req, ok
}

// ChunksOf returns the recorded chunks of a detailed call in Seq order.
func (r *Recorder) ChunksOf(callID string) []callrecord.Chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]callrecord.Chunk(nil), r.chunks[callID]...)
}
