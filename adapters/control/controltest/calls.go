package controltest

import (
	"context"
	"fmt"
	"sort"
	"time"

	"keygate/domain/callrecord"
	"keygate/ports"
)

// Start implements ports.CallRecorder.
func (s *Store) Start(ctx context.Context, rec callrecord.Record) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	rec.Kind = rec.Kind.Effective()
	s.records[rec.CallID] = rec
	return nil
}

// Request implements ports.CallRecorder.
func (s *Store) Request(ctx context.Context, callID string, req callrecord.Request) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	s.requests[callID] = req
	return nil
}

// Chunks implements ports.CallRecorder.
func (s *Store) Chunks(ctx context.Context, callID string, chunks []callrecord.Chunk) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	s.chunks[callID] = append(s.chunks[callID], chunks...)
	return nil
}

// Finish implements ports.CallRecorder.
func (s *Store) Finish(ctx context.Context, rec callrecord.Record) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if old, ok := s.records[rec.CallID]; !ok || old.Status != callrecord.StatusRunning {
		return fmt.Errorf("finish call %s: %w", rec.CallID, callrecord.ErrNotRunning)
	}
	rec.Kind = rec.Kind.Effective()
	s.records[rec.CallID] = rec
	return nil
}

// CallRecord implements ports.CallRecordReader.
func (s *Store) CallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return callrecord.Record{}, err
	}
	defer unlock()
	rec, ok := s.records[callID]
	if !ok {
		return rec, fmt.Errorf("call %s: %w", callID, ports.ErrNotFound)
	}
	return rec, nil
}

// CallDetail implements ports.CallRecordReader.
func (s *Store) CallDetail(ctx context.Context, callID string) (callrecord.Request, []callrecord.Chunk, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return callrecord.Request{}, nil, err
	}
	defer unlock()
	req, ok := s.requests[callID]
	if !ok {
		return req, nil, fmt.Errorf("call detail %s: %w", callID, ports.ErrNotFound)
	}
	return req, append([]callrecord.Chunk(nil), s.chunks[callID]...), nil
}

// CallRecords implements ports.CallLister.
func (s *Store) CallRecords(ctx context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []callrecord.Record
	for _, r := range s.records {
		if matches(r, q) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return newer(out[i], out[j].Timing.RequestStarted, out[j].CallID) })
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// newer reports whether r comes before (started, id) in list order.
func newer(r callrecord.Record, started time.Time, id string) bool {
	if !r.Timing.RequestStarted.Equal(started) {
		return r.Timing.RequestStarted.After(started)
	}
	return r.CallID > id
}

func matches(r callrecord.Record, q ports.CallQuery) bool {
	t := r.Timing.RequestStarted
	switch {
	case !q.Since.IsZero() && t.Before(q.Since), !q.Until.IsZero() && !t.Before(q.Until):
		return false
	case q.ModelID != "" && r.Model.ModelID != q.ModelID:
		return false
	case q.Status != 0 && r.Status != q.Status:
		return false
	case q.UserID != "" && r.UserID != q.UserID:
		return false
	case q.Kind != "" && r.Kind != q.Kind:
		return false
	case q.ConversationID != "" && r.ConversationID != q.ConversationID:
		return false
	case q.After != nil && !newer(callrecord.Record{Timing: callrecord.Timing{RequestStarted: q.After.Started}, CallID: q.After.CallID}, t, r.CallID):
		return false
	}
	return true
}

// PurgeDetails implements ports.DetailPurger.
func (s *Store) PurgeDetails(ctx context.Context, cutoff time.Time) (int, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	n := 0
	for id := range s.requests {
		if s.records[id].Timing.RequestStarted.Before(cutoff) {
			delete(s.requests, id)
			delete(s.chunks, id)
			n++
		}
	}
	return n, nil
}
