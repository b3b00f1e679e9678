package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/callrecord"
	"keygate/gen/sqlc/pgdb"
)

// Call records, their requests and chunks: relstore builds and maps the
// rows (callrows.go), this file binds them to the generated queries.

func (t tx) UpsertCallRecord(ctx context.Context, rec callrecord.Record) error {
	return interpretError(ctx, t.q.UpsertCallRecord(ctx, pgdb.UpsertCallRecordParams(relstore.CallRecordOf[time.Time](rec))))
}

func (t tx) GetCallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	row, err := t.q.GetCallRecord(ctx, callID)
	return relstore.CallRecordColumns[time.Time](row).Record(), interpretError(ctx, err)
}

func (t tx) InsertCallRequest(ctx context.Context, callID string, req callrecord.Request) error {
	cols, err := relstore.CallRequestOf(callID, req)
	if err != nil {
		return err
	}
	return interpretError(ctx, t.q.InsertCallRequest(ctx, pgdb.InsertCallRequestParams(cols)))
}

func (t tx) GetCallRequest(ctx context.Context, callID string) (callrecord.Request, error) {
	row, err := t.q.GetCallRequest(ctx, callID)
	if err != nil {
		return callrecord.Request{}, interpretError(ctx, err)
	}
	return relstore.CallRequestColumns(row).Request()
}

func (t tx) InsertCallChunk(ctx context.Context, callID string, c callrecord.Chunk) error {
	return interpretError(ctx, t.q.InsertCallChunk(ctx, pgdb.InsertCallChunkParams(relstore.CallChunkOf(callID, c))))
}

func (t tx) CallChunks(ctx context.Context, callID string) ([]callrecord.Chunk, error) {
	rows, err := t.q.CallChunks(ctx, callID)
	return relstore.Pick(rows, func(r pgdb.CallChunk) callrecord.Chunk { return relstore.CallChunkColumns(r).Chunk() }), interpretError(ctx, err)
}
