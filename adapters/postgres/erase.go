package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

// EraseConversationRows deletes one conversation's rows, children first
// (the conversation's head is checked at commit), and returns the image
// blob ids its messages named.
func (t tx) EraseConversationRows(ctx context.Context, id string) ([][]byte, error) {
	blobs, err := t.q.ConversationImageBlobs(ctx, id)
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	for _, step := range []func(context.Context, string) error{
		t.q.EraseCallChunks, t.q.EraseCallRequests, t.q.ErasePrompts, t.q.EraseCallErrors,
		t.q.EraseRunOwners, t.q.EraseConversationOwner, t.q.EraseToolRoundResults, t.q.EraseToolRounds, t.q.EraseRuns,
		t.q.EraseMessageBlobs, t.q.EraseCheckpointMessages, t.q.EraseCheckpoints, t.q.EraseMessages,
		t.q.EraseConversationRow, t.q.EraseRouteAffinity, t.q.EraseContextAnchorRow,
	} {
		if err := step(ctx, id); err != nil {
			return nil, interpretError(ctx, err)
		}
	}
	return blobs, nil
}

// EraseBlobIfUnused deletes a blob (and the references it makes) unless a
// message or another blob still names it.
func (t tx) EraseBlobIfUnused(ctx context.Context, id []byte) error {
	if err := t.q.EraseUnusedBlobRefs(ctx, id); err != nil {
		return interpretError(ctx, err)
	}
	return interpretError(ctx, t.q.EraseUnusedBlob(ctx, id))
}

func (t tx) StaleConversations(ctx context.Context, cutoff time.Time, limit int32) ([]string, error) {
	ids, err := t.q.StaleConversations(ctx, pgdb.StaleConversationsParams{Cutoff: cutoff, MaxRows: limit})
	return ids, interpretError(ctx, err)
}
