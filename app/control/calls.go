package control

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/callrecord"
	"keygate/ports"
)

// Page sizes of call lists.
const (
	defaultCallPage = 100
	maxCallPage     = 500
)

// CallsOptions are the dependencies of [Calls].
type CallsOptions struct {
	Lister ports.CallLister
	Reader ports.CallRecordReader
	// Prompts holds the requests compared by the cache insight; nil makes
	// every insight InsightUnknown.
	Prompts ports.PromptStore
}

// Calls reads call records.
type Calls struct {
	o CallsOptions
}

// NewCalls returns the call record use cases.
func NewCalls(o CallsOptions) *Calls { return &Calls{o: o} }

// CallPage is one page of a call list; Next is nil on the last page.
type CallPage struct {
	Calls []callrecord.Record
	Next  *ports.CallCursor
}

// List returns records matching q, newest first; q.Limit is clamped to
// 1..500 (100 when unset).
func (c *Calls) List(ctx context.Context, q ports.CallQuery) (CallPage, error) {
	for field, v := range map[string]string{"filter.model_id": q.ModelID,
		"filter.conversation_id": q.ConversationID, "filter.user_id": q.UserID} {
		if err := checkFilterID(field, v); err != nil {
			return CallPage{}, err
		}
	}
	switch {
	case q.Limit <= 0:
		q.Limit = defaultCallPage
	case q.Limit > maxCallPage:
		q.Limit = maxCallPage
	}
	want := q.Limit
	q.Limit++ // one more tells whether there is a next page
	recs, err := c.o.Lister.CallRecords(ctx, q)
	if err != nil {
		return CallPage{}, fmt.Errorf("list calls: %w", err)
	}
	page := CallPage{Calls: recs}
	if len(recs) > want {
		page.Calls = recs[:want]
		last := page.Calls[want-1]
		page.Next = &ports.CallCursor{Started: last.Timing.RequestStarted, CallID: last.CallID}
	}
	return page, nil
}

// CallDetail is one call with what detailed mode recorded and its insight.
type CallDetail struct {
	Record callrecord.Record
	// Request is nil unless the call was detailed and its details are kept.
	Request *callrecord.Request
	Chunks  []callrecord.Chunk
	Insight Insight
}

// Get returns one call, or ErrNotFound.
func (c *Calls) Get(ctx context.Context, callID string) (CallDetail, error) {
	rec, err := c.o.Reader.CallRecord(ctx, callID)
	if err != nil {
		return CallDetail{}, fmt.Errorf("read call %s: %w", callID, err)
	}
	d := CallDetail{Record: rec}
	req, chunks, err := c.o.Reader.CallDetail(ctx, callID)
	switch {
	case err == nil:
		d.Request, d.Chunks = &req, chunks
	case !errors.Is(err, ports.ErrNotFound):
		return CallDetail{}, fmt.Errorf("read call detail %s: %w", callID, err)
	}
	if d.Insight, err = c.insight(ctx, rec); err != nil {
		return CallDetail{}, err
	}
	return d, nil
}
