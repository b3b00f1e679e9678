package runtest

import (
	"context"
	"fmt"
	"slices"

	"keygate/domain/callrecord"
	"keygate/ports"
)

var (
	_ ports.CallRecorder     = (*Store)(nil)
	_ ports.CallRecordReader = CallRecords{}
)

// storedCall is one attempt's record with what a detailed call recorded.
type storedCall struct {
	rec    callrecord.Record
	req    *callrecord.Request
	chunks []callrecord.Chunk
}

// Start implements ports.CallRecorder.
func (s *Store) Start(ctx context.Context, rec callrecord.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start call record: %w", err)
	}
	rec.Kind = rec.Kind.Effective()
	s.calls[rec.CallID] = &storedCall{rec: rec}
	return nil
}

// Request implements ports.CallRecorder.
func (s *Store) Request(ctx context.Context, callID string, req callrecord.Request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store call request: %w", err)
	}
	c, ok := s.calls[callID]
	if !ok {
		return fmt.Errorf("call %q: %w", callID, ports.ErrNotFound)
	}
	c.req = &req
	return nil
}

// Chunks implements ports.CallRecorder.
func (s *Store) Chunks(ctx context.Context, callID string, chunks []callrecord.Chunk) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store call chunks: %w", err)
	}
	c, ok := s.calls[callID]
	if !ok {
		return fmt.Errorf("call %q: %w", callID, ports.ErrNotFound)
	}
	c.chunks = append(c.chunks, slices.Clone(chunks)...)
	return nil
}

// Finish implements ports.CallRecorder.
func (s *Store) Finish(ctx context.Context, rec callrecord.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("finish call record: %w", err)
	}
	c, ok := s.calls[rec.CallID]
	if !ok || c.rec.Status != callrecord.StatusRunning || !rec.Status.Final() {
		return callrecord.ErrNotRunning
	}
	rec.Kind = rec.Kind.Effective()
	c.rec = rec
	return nil
}

// CallRecord returns the record of one attempt, for assertions.
func (s *Store) CallRecord(callID string) (callrecord.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.calls[callID]
	if !ok {
		return callrecord.Record{}, false
	}
	return c.rec, true
}

// CallRecords returns the store's ports.CallRecordReader.
func (s *Store) CallRecords() CallRecords { return CallRecords{s} }

// CallRecords implements ports.CallRecordReader over a Store.
type CallRecords struct{ s *Store }

// CallRecord implements ports.CallRecordReader.
func (r CallRecords) CallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	if err := ctx.Err(); err != nil {
		return callrecord.Record{}, fmt.Errorf("read call record: %w", err)
	}
	rec, ok := r.s.CallRecord(callID)
	if !ok {
		return callrecord.Record{}, fmt.Errorf("call %q: %w", callID, ports.ErrNotFound)
	}
	return rec, nil
}

// CallDetail implements ports.CallRecordReader.
func (r CallRecords) CallDetail(ctx context.Context, callID string) (callrecord.Request, []callrecord.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return callrecord.Request{}, nil, fmt.Errorf("read call detail: %w", err)
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	c, ok := r.s.calls[callID]
	if !ok || c.req == nil {
		return callrecord.Request{}, nil, fmt.Errorf("call %q detail: %w", callID, ports.ErrNotFound)
	}
	chunks := slices.Clone(c.chunks)
	slices.SortStableFunc(chunks, func(a, b callrecord.Chunk) int { return a.Seq - b.Seq })
	return *c.req, chunks, nil
}
