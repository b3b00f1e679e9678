package company

import (
	"context"
	"fmt"

	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/ports"
)

// Store decorators that apply tenancy to the ports the console and the
// Cursor routes read and write through. A call record carries the user
// whose turn made it (callrecord.Record.UserID), so call reads filter on
// that column; conversations have recorded owners (ports.OwnerStore).
//
// Console side (CallReader, CallLister, Conversations): the caller is the
// access.Principal that adapters/auth put on the context; without one
// every read is refused with access.ErrDenied.
//
// Cursor side (ConversationStore, and every store of CursorStores): the
// caller is the identity the Cursor proxy put on the context
// (identity.Local on a laptop); the first Open of a conversation claims
// it, and an Open, Apply, Head or Load of another user's conversation
// fails with access.ErrDenied.

func principal(ctx context.Context) (access.Principal, error) {
	p, ok := access.FromContext(ctx)
	if !ok {
		return access.Principal{}, access.ErrDenied
	}
	return p, nil
}

// CallReader wraps next: a member reads only the records of calls made in
// their own turns; another user's record is ports.ErrNotFound.
func (t *Tenancy) CallReader(next ports.CallRecordReader) ports.CallRecordReader {
	return scopedCalls{next: next}
}

type scopedCalls struct {
	next ports.CallRecordReader
}

func (s scopedCalls) CallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	p, err := principal(ctx)
	if err != nil {
		return callrecord.Record{}, err
	}
	rec, err := s.next.CallRecord(ctx, callID)
	if err != nil {
		return rec, err
	}
	if !p.CanSee(rec.UserID) {
		return callrecord.Record{}, fmt.Errorf("call %s: %w", callID, ports.ErrNotFound)
	}
	return rec, nil
}

func (s scopedCalls) CallDetail(ctx context.Context, callID string) (callrecord.Request, []callrecord.Chunk, error) {
	if _, err := s.CallRecord(ctx, callID); err != nil {
		return callrecord.Request{}, nil, err
	}
	return s.next.CallDetail(ctx, callID)
}

// CallLister wraps next: a member's lists (and so their dashboard) hold
// only the calls of their own turns; asking for another user's calls
// yields an empty list.
func (t *Tenancy) CallLister(next ports.CallLister) ports.CallLister {
	return scopedCallList{next: next}
}

type scopedCallList struct {
	next ports.CallLister
}

func (s scopedCallList) CallRecords(ctx context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin() {
		if q.UserID != "" && q.UserID != p.UserID {
			return []callrecord.Record{}, nil
		}
		q.UserID = p.UserID
	}
	return s.next.CallRecords(ctx, q)
}

// SuggestionFateLister wraps next as CallLister does the calls: a member's
// dashboard counts only the fates of their own Tab suggestions; asking for
// another user's yields none.
func (t *Tenancy) SuggestionFateLister(next ports.SuggestionFateLister) ports.SuggestionFateLister {
	return scopedFates{next: next}
}

type scopedFates struct {
	next ports.SuggestionFateLister
}

func (s scopedFates) SuggestionFates(ctx context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin() {
		if q.UserID != "" && q.UserID != p.UserID {
			return []ports.SuggestionFate{}, nil
		}
		q.UserID = p.UserID
	}
	return s.next.SuggestionFates(ctx, q)
}

// Conversations wraps next: a member lists and opens only their own
// conversations.
func (t *Tenancy) Conversations(next ports.ConversationLister) ports.ConversationLister {
	return scopedConversations{next: next, t: t}
}

type scopedConversations struct {
	next ports.ConversationLister
	t    *Tenancy
}

func (s scopedConversations) Conversations(ctx context.Context, after *ports.ConversationSummary, limit int) ([]ports.ConversationSummary, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if p.IsAdmin() {
		return s.next.Conversations(ctx, after, limit)
	}
	return refill(ctx, s.t, p, after, limit, s.next.Conversations,
		func(c ports.ConversationSummary) string { return c.ID })
}

func (s scopedConversations) Checkpoints(ctx context.Context, conversationID string) ([]ports.StoredCheckpoint, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.t.Authorize(ctx, p, access.KindConversation, conversationID); err != nil {
		return nil, err
	}
	return s.next.Checkpoints(ctx, conversationID)
}

// refill pages through a list with fetch, from after on, until it has
// limit items the principal may see (limit <= 0: one page of the source,
// filtered).
func refill[T any](ctx context.Context, t *Tenancy, p access.Principal, after *T, limit int,
	fetch func(ctx context.Context, after *T, limit int) ([]T, error), conv func(T) string) ([]T, error) {
	out := []T{}
	for {
		page, err := fetch(ctx, after, limit)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(page))
		for _, item := range page {
			ids = append(ids, conv(item))
		}
		visible, err := t.Visible(ctx, p, access.KindConversation, ids)
		if err != nil {
			return nil, err
		}
		keep := make(map[string]bool, len(visible))
		for _, id := range visible {
			keep[id] = true
		}
		for _, item := range page {
			if keep[conv(item)] && (limit <= 0 || len(out) < limit) {
				out = append(out, item)
			}
		}
		if limit <= 0 || len(page) < limit || len(out) >= limit {
			return out, nil
		}
		after = &page[len(page)-1]
	}
}

// ConversationStore wraps the store the run engine writes through: the
// caller on ctx claims a conversation at its first Open and is refused
// (access.ErrDenied) any conversation another user owns.
func (t *Tenancy) ConversationStore(next ports.ConversationStore) ports.ConversationStore {
	return scopedStore{ConversationStore: next, t: t}
}

type scopedStore struct {
	ports.ConversationStore
	t *Tenancy
}

func (s scopedStore) Open(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	if err := s.t.Claim(ctx, access.KindConversation, conversationID); err != nil {
		return conversation.Checkpoint{}, err
	}
	return s.ConversationStore.Open(ctx, conversationID)
}

func (s scopedStore) Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	if err := s.mine(ctx, conversationID); err != nil {
		return conversation.Checkpoint{}, err
	}
	return s.ConversationStore.Head(ctx, conversationID)
}

func (s scopedStore) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	cp, msgs, err := s.ConversationStore.Load(ctx, checkpointID)
	if err != nil {
		return cp, msgs, err
	}
	if err := s.mine(ctx, cp.ConversationID()); err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	return cp, msgs, nil
}

// mine refuses a conversation owned by another user than the caller; an
// unowned conversation (created before ownership existed) is allowed.
func (s scopedStore) mine(ctx context.Context, conversationID string) error {
	return s.t.callerOwns(ctx, conversationID)
}

// ConsoleConversations wraps the store the console reads a conversation's
// head and checkpoint messages through: a member reads only their own
// conversations (another user's is ports.ErrNotFound), an administrator
// reads every one. Writes are not the console's and pass through unscoped
// only because the port bundles them; the console never calls them.
func (t *Tenancy) ConsoleConversations(next ports.ConversationStore) ports.ConversationStore {
	return consoleStore{ConversationStore: next, t: t}
}

type consoleStore struct {
	ports.ConversationStore
	t *Tenancy
}

func (s consoleStore) Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	p, err := principal(ctx)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	if err := s.t.Authorize(ctx, p, access.KindConversation, conversationID); err != nil {
		return conversation.Checkpoint{}, err
	}
	return s.ConversationStore.Head(ctx, conversationID)
}

func (s consoleStore) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	p, err := principal(ctx)
	if err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	cp, msgs, err := s.ConversationStore.Load(ctx, checkpointID)
	if err != nil {
		return cp, msgs, err
	}
	if err := s.t.Authorize(ctx, p, access.KindConversation, cp.ConversationID()); err != nil {
		return conversation.Checkpoint{}, nil, fmt.Errorf("checkpoint %s: %w", checkpointID, ports.ErrNotFound)
	}
	return cp, msgs, nil
}
