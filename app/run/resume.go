package run

import (
	"context"
	"errors"
	"strings"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// ErrNothingToResume fails a resume of a conversation that holds no
// message: the client is to send its message again.
var ErrNothingToResume = errors.New("nothing to resume: Keygate holds no message of this conversation and the client's checkpoint has none; send the message again")

// resume prepares a Resume action. A pending tool round runs first: the
// stored round the client's checkpoint names (or the resumed run's), else
// the calls the client still holds (Action.PendingCalls) when the store
// does not know their round (a lost or restored store); the model is not
// called again for cycles whose output is stored. done reports that
// history already ends with a finished answer and nothing is left to do.
func (r *runner) resume(ctx context.Context) (bool, error) {
	a := r.p.Action
	msgs, err := r.load(ctx)
	if err != nil {
		return false, err
	}
	round, ok, known, err := r.pendingRound(ctx, msgs)
	if err != nil {
		return false, err
	}
	if ok {
		return false, r.executeRound(ctx, round, false)
	}
	if a.PendingCalls != nil && !known {
		if held := heldCalls(*a.PendingCalls, a.PendingRoundID, msgs); len(held.Calls) > 0 {
			round, err := toolround.New(conversation.ResumedToolRoundID(r.p.RunID), held)
			if err != nil {
				return false, failure(CategoryClient, false, err)
			}
			return false, r.executeRound(ctx, round, true)
		}
	}
	if len(msgs) == 0 && !r.appended {
		// Neither the store nor the client's checkpoint holds anything of
		// this conversation (its first message never reached a replica
		// that stored it): a model call would have only the system prompt
		// to answer, so the user is asked to send the message again.
		return false, failure(CategoryClient, false, ErrNothingToResume)
	}
	if r.appended {
		return false, nil
	}
	last := msgs[len(msgs)-1]
	if last.Role() != llm.RoleAssistant || last.ToolRoundID() != "" || strings.HasSuffix(last.ID(), interruptedSuffix) {
		return false, nil
	}
	return true, r.committed(ctx, Cause{Kind: CauseFinalTurn}, 0, true)
}

// heldCalls is what the client still holds of round roundID (a), less the
// calls history already answers within that round (a checkpoint published
// mid-round holds some results). Text, thinking and replay state stay only
// when no call of the round is in history: otherwise they are there, with
// its first call.
func heldCalls(a llm.Assistant, roundID string, msgs []conversation.Message) llm.Assistant {
	answered := map[string]bool{}
	partial := false
	for _, m := range msgs {
		if roundID == "" || m.ToolRoundID() != roundID {
			continue
		}
		partial = true
		if res, ok := m.ToolResult(); ok {
			answered[res.CallID] = true
		}
	}
	held := llm.Assistant{}
	if !partial {
		held.Text, held.Thinking, held.Replay = a.Text, a.Thinking, a.Replay
	}
	for _, c := range a.Calls {
		if !answered[c.CallID] {
			held.Calls = append(held.Calls, c)
		}
	}
	return held
}

// pendingRound finds the stored round the resumed run left unsettled; known
// reports that the store holds the round the client's checkpoint names
// (settled or not), so the client's copy of its calls is not needed.
func (r *runner) pendingRound(ctx context.Context, msgs []conversation.Message) (round toolround.Round, ok, known bool, err error) {
	var ids []string
	if id := r.p.Action.PendingRoundID; id != "" {
		ids = append(ids, id)
	}
	if from := r.p.Action.FromRunID; from != "" {
		run, err := r.e.runs.Run(ctx, from)
		switch {
		case err == nil && run.ConversationID == r.p.ConversationID:
			if run.ProviderCallIndex >= 0 {
				ids = append(ids, conversation.ToolRoundID(from, run.ProviderCallIndex))
			}
			ids = append(ids, conversation.ResumedToolRoundID(from))
		case err != nil && !errors.Is(err, ports.ErrNotFound):
			return toolround.Round{}, false, false, storeErr("read resumed run", err)
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].ToolRoundID() != "" {
		ids = append(ids, msgs[n-1].ToolRoundID())
	}
	for _, id := range ids {
		round, err := r.e.rounds.Round(ctx, id)
		switch {
		case errors.Is(err, ports.ErrNotFound):
			continue
		case err != nil:
			return toolround.Round{}, false, false, storeErr("read tool round", err)
		}
		if id == r.p.Action.PendingRoundID {
			known = true
		}
		if !round.Settled() {
			return round, true, known, nil
		}
	}
	return toolround.Round{}, false, known, nil
}
