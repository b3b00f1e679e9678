package company

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"keygate/domain/access"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// CursorStores are the stores of the Cursor path: the run layer and the run
// engine get these and no others. Each acts for the caller the Cursor proxy
// put on ctx (identity.FromContext) and refuses a context without one with
// access.ErrDenied, so a turn that lost its caller writes nothing.
//
// What each keeps to the caller:
//   - Conversations: the first Open claims a conversation; Open, Apply,
//     Head and Load of another user's fail with access.ErrDenied.
//   - Runs: Claim, BeginProviderCall and Finish refuse (access.ErrDenied)
//     a run on another user's conversation, and Claim a run under another
//     user's parent run. Reads pass: a run holds ids and status, never
//     conversation content, and the run layer answers a subagent that
//     names a foreign parent by reading it.
//   - ToolRounds: Round of another user's round is ports.ErrNotFound (a
//     client names rounds when it resumes); Start, Commit and Interrupt
//     for another user's run are access.ErrDenied.
//   - Blobs: content-addressed, so there is no owner to check; only the
//     caller is required.
//   - ContextAnchors: another user's conversation is ports.ErrNotFound to
//     read and access.ErrDenied to write.
type CursorStores struct {
	Conversations  ports.ConversationStore
	Runs           ports.RunStore
	ToolRounds     ports.ToolRoundStore
	Blobs          ports.BlobStore
	ContextAnchors ports.ContextAnchorStore
}

// CursorStores scopes the stores of st for the Cursor path (see
// CursorStores).
func (t *Tenancy) CursorStores(st ports.Stores) CursorStores {
	return CursorStores{
		Conversations:  t.ConversationStore(st.Conversations),
		Runs:           scopedRuns{next: st.Runs, t: t},
		ToolRounds:     scopedRounds{next: st.ToolRounds, runs: st.Runs, t: t},
		Blobs:          callerBlobs{next: st.Blobs},
		ContextAnchors: scopedAnchors{next: st.ContextAnchors, t: t},
	}
}

// caller is the identity on ctx, or access.ErrDenied.
func caller(ctx context.Context) (identity.Identity, error) {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return identity.Identity{}, fmt.Errorf("no caller: %w", access.ErrDenied)
	}
	return who, nil
}

// callerOwns refuses (access.ErrDenied) a conversation another user than
// the caller owns; an unowned conversation (from before ownership was
// recorded) is allowed.
func (t *Tenancy) callerOwns(ctx context.Context, conversationID string) error {
	who, err := caller(ctx)
	if err != nil {
		return err
	}
	if t.memo.owns(access.KindConversation, conversationID, who.UserID) {
		return nil
	}
	owner, err := t.owners.Owner(ctx, access.KindConversation, conversationID)
	if errors.Is(err, ports.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if owner != who.UserID {
		return fmt.Errorf("conversation %s: %w", conversationID, access.ErrDenied)
	}
	t.memo.saw(access.KindConversation, conversationID, owner)
	return nil
}

// callerRuns refuses (access.ErrDenied) a run on a conversation another
// user owns; an unknown run is left to the store to report.
func (t *Tenancy) callerRuns(ctx context.Context, runs ports.RunStore, runID string) error {
	if _, err := caller(ctx); err != nil {
		return err
	}
	run, err := runs.Run(ctx, runID)
	if errors.Is(err, ports.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := t.callerOwns(ctx, run.ConversationID); err != nil {
		return fmt.Errorf("run %s: %w", runID, err)
	}
	return nil
}

// scopedRuns keeps runs to the caller's conversations.
type scopedRuns struct {
	next ports.RunStore
	t    *Tenancy
}

func (s scopedRuns) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	if err := s.claimable(ctx, c); err != nil {
		return "", err
	}
	return s.next.Claim(ctx, c)
}

// claimable refuses a claim on another user's conversation or under
// another user's parent run.
func (s scopedRuns) claimable(ctx context.Context, c ports.RunClaim) error {
	if err := s.t.callerOwns(ctx, c.ConversationID); err != nil {
		return fmt.Errorf("claim run %s: %w", c.RunID, err)
	}
	if c.ParentRunID != "" {
		parent, err := s.next.Run(ctx, c.ParentRunID)
		switch {
		case err == nil:
			if err := s.t.callerOwns(ctx, parent.ConversationID); err != nil {
				return fmt.Errorf("claim run %s under parent %s: %w", c.RunID, c.ParentRunID, err)
			}
		case !errors.Is(err, ports.ErrNotFound):
			return err
		}
		// A parent that is no stored run (the parent request id standing
		// in) names nothing of anyone's.
	}
	return nil
}

// ClaimTurn is Claim's check (the claim writes the turn's messages to the
// same conversation, which Apply's check is too).
func (s scopedRuns) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	if err := s.claimable(ctx, c); err != nil {
		return ports.ClaimedTurn{}, err
	}
	return s.next.ClaimTurn(ctx, c, initial)
}

func (s scopedRuns) Run(ctx context.Context, runID string) (ports.Run, error) {
	if _, err := caller(ctx); err != nil {
		return ports.Run{}, err
	}
	return s.next.Run(ctx, runID)
}

func (s scopedRuns) LatestForRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	if _, err := caller(ctx); err != nil {
		return ports.Run{}, err
	}
	return s.next.LatestForRequest(ctx, cursorRequestID)
}

func (s scopedRuns) BeginProviderCall(ctx context.Context, runID string) (int, error) {
	if err := s.t.callerRuns(ctx, s.next, runID); err != nil {
		return 0, err
	}
	return s.next.BeginProviderCall(ctx, runID)
}

func (s scopedRuns) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	if err := s.t.callerRuns(ctx, s.next, runID); err != nil {
		return err
	}
	return s.next.Finish(ctx, runID, end)
}

// scopedRounds keeps tool rounds to the caller's conversations.
type scopedRounds struct {
	next ports.ToolRoundStore
	runs ports.RunStore
	t    *Tenancy
}

func (s scopedRounds) Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error {
	if err := s.t.callerRuns(ctx, s.runs, runID); err != nil {
		return err
	}
	return s.next.Start(ctx, runID, baseCheckpointID, round)
}

// Round reads the round only when its run is on a conversation of the
// caller's; another user's round reads as unknown, so ids cannot be probed.
func (s scopedRounds) Round(ctx context.Context, roundID string) (toolround.Round, error) {
	if _, err := caller(ctx); err != nil {
		return toolround.Round{}, err
	}
	runID, _, ok := strings.Cut(roundID, ":round:")
	if !ok {
		return toolround.Round{}, fmt.Errorf("tool round %s: %w", roundID, ports.ErrNotFound)
	}
	run, err := s.runs.Run(ctx, runID)
	if err != nil {
		return toolround.Round{}, fmt.Errorf("tool round %s: %w", roundID, err)
	}
	if err := s.t.callerOwns(ctx, run.ConversationID); errors.Is(err, access.ErrDenied) {
		return toolround.Round{}, fmt.Errorf("tool round %s: %w", roundID, ports.ErrNotFound)
	} else if err != nil {
		return toolround.Round{}, err
	}
	return s.next.Round(ctx, roundID)
}

func (s scopedRounds) Commit(ctx context.Context, runID, roundID string, result llm.ToolResult) (ports.ToolRoundCommit, error) {
	if err := s.t.callerRuns(ctx, s.runs, runID); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	return s.next.Commit(ctx, runID, roundID, result)
}

func (s scopedRounds) Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	if err := s.t.callerRuns(ctx, s.runs, runID); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	return s.next.Interrupt(ctx, runID, roundID, detached...)
}

// callerBlobs requires a caller. Blobs are addressed by their content's
// hash: naming one means knowing what it holds.
type callerBlobs struct{ next ports.BlobStore }

func (b callerBlobs) Put(ctx context.Context, id string, data []byte) error {
	if _, err := caller(ctx); err != nil {
		return err
	}
	return b.next.Put(ctx, id, data)
}

func (b callerBlobs) Get(ctx context.Context, id string) ([]byte, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return b.next.Get(ctx, id)
}

func (b callerBlobs) Has(ctx context.Context, id string) (bool, error) {
	if _, err := caller(ctx); err != nil {
		return false, err
	}
	return b.next.Has(ctx, id)
}

func (b callerBlobs) Link(ctx context.Context, parentID string, childIDs ...string) error {
	if _, err := caller(ctx); err != nil {
		return err
	}
	return b.next.Link(ctx, parentID, childIDs...)
}

func (b callerBlobs) Children(ctx context.Context, parentID string) ([]string, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return b.next.Children(ctx, parentID)
}

// scopedAnchors keeps context anchors to the caller's conversations.
type scopedAnchors struct {
	next ports.ContextAnchorStore
	t    *Tenancy
}

func (a scopedAnchors) ContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error) {
	if _, err := caller(ctx); err != nil {
		return compaction.Anchor{}, err
	}
	if err := a.t.callerOwns(ctx, conversationID); errors.Is(err, access.ErrDenied) {
		return compaction.Anchor{}, fmt.Errorf("context anchor of %s: %w", conversationID, ports.ErrNotFound)
	} else if err != nil {
		return compaction.Anchor{}, err
	}
	return a.next.ContextAnchor(ctx, conversationID)
}

func (a scopedAnchors) PutContextAnchor(ctx context.Context, conversationID string, v compaction.Anchor) error {
	if err := a.t.callerOwns(ctx, conversationID); err != nil {
		return fmt.Errorf("put context anchor of %s: %w", conversationID, err)
	}
	return a.next.PutContextAnchor(ctx, conversationID, v)
}

// Apply writes a change only to a conversation of the caller's.
func (s scopedStore) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	if err := s.t.callerOwns(ctx, w.Change.ConversationID()); err != nil {
		return conversation.Decision{}, fmt.Errorf("apply to conversation %s: %w", w.Change.ConversationID(), err)
	}
	return s.ConversationStore.Apply(ctx, w)
}
