package relstore

import (
	"context"
	"fmt"

	"keygate/domain/callrecord"
	"keygate/ports"
)

// Calls implements ports.CallRecorder and ports.CallRecordReader.
type Calls struct{ s *Store }

var (
	_ ports.CallRecorder     = Calls{}
	_ ports.CallRecordReader = Calls{}
)

// Start implements ports.CallRecorder.
func (c Calls) Start(ctx context.Context, rec callrecord.Record) error {
	err := c.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertCallRecord(ctx, rec) })
	if err != nil {
		return fmt.Errorf("start call record %q: %w", rec.CallID, err)
	}
	return nil
}

// Request implements ports.CallRecorder.
func (c Calls) Request(ctx context.Context, callID string, req callrecord.Request) error {
	err := c.s.engine.Write(ctx, func(tx Tx) error { return tx.InsertCallRequest(ctx, callID, req) })
	if err != nil {
		return fmt.Errorf("record request of call %q: %w", callID, err)
	}
	return nil
}

// Chunks implements ports.CallRecorder.
func (c Calls) Chunks(ctx context.Context, callID string, chunks []callrecord.Chunk) error {
	err := c.s.engine.Write(ctx, func(tx Tx) error {
		for _, ch := range chunks {
			if err := tx.InsertCallChunk(ctx, callID, ch); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record chunks of call %q: %w", callID, err)
	}
	return nil
}

// Finish implements ports.CallRecorder.
func (c Calls) Finish(ctx context.Context, rec callrecord.Record) error {
	err := c.s.engine.Write(ctx, func(tx Tx) error {
		stored, err := tx.GetCallRecord(ctx, rec.CallID)
		if err != nil {
			return err
		}
		if stored.Status != callrecord.StatusRunning {
			return callrecord.ErrNotRunning
		}
		return tx.UpsertCallRecord(ctx, rec)
	})
	if err != nil {
		return fmt.Errorf("finish call record %q: %w", rec.CallID, err)
	}
	return nil
}

// CallRecord implements ports.CallRecordReader.
func (c Calls) CallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	var rec callrecord.Record
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		rec, err = tx.GetCallRecord(ctx, callID)
		return err
	})
	if err != nil {
		return callrecord.Record{}, fmt.Errorf("read call record %q: %w", callID, err)
	}
	return rec, nil
}

// CallDetail implements ports.CallRecordReader.
func (c Calls) CallDetail(ctx context.Context, callID string) (callrecord.Request, []callrecord.Chunk, error) {
	var (
		req    callrecord.Request
		chunks []callrecord.Chunk
	)
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		if req, err = tx.GetCallRequest(ctx, callID); err != nil {
			return err
		}
		chunks, err = tx.CallChunks(ctx, callID)
		return err
	})
	if err != nil {
		return callrecord.Request{}, nil, fmt.Errorf("read detail of call %q: %w", callID, err)
	}
	return req, chunks, nil
}
