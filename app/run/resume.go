package run

import (
	"errors"
	"strings"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// resume prepares a Resume action. A pending tool round (named, derived
// from the resumed run, or supplied by the client) runs first; the model is
// not called again for cycles whose output is stored. done reports that
// history already ends with a finished answer and nothing is left to do.
func (r *runner) resume() (bool, error) {
	a := r.p.Action
	if a.PendingCalls != nil {
		round, err := toolround.New(conversation.ResumedToolRoundID(r.p.RunID), *a.PendingCalls)
		if err != nil {
			return false, failure(CategoryClient, false, err)
		}
		return false, r.executeRound(round, true)
	}
	msgs, err := r.load()
	if err != nil {
		return false, err
	}
	round, ok, err := r.pendingRound(msgs)
	if err != nil {
		return false, err
	}
	if ok {
		return false, r.executeRound(round, false)
	}
	if r.appended || len(msgs) == 0 {
		return false, nil
	}
	last := msgs[len(msgs)-1]
	if last.Role() != llm.RoleAssistant || last.ToolRoundID() != "" || strings.HasSuffix(last.ID(), interruptedSuffix) {
		return false, nil
	}
	return true, r.committed(Cause{Kind: CauseFinalTurn}, 0, true)
}

// pendingRound finds the stored round the resumed run left unsettled.
func (r *runner) pendingRound(msgs []conversation.Message) (toolround.Round, bool, error) {
	var ids []string
	if id := r.p.Action.PendingRoundID; id != "" {
		ids = append(ids, id)
	}
	if from := r.p.Action.FromRunID; from != "" {
		run, err := r.e.runs.Run(r.ctx, from)
		switch {
		case err == nil && run.ConversationID == r.p.ConversationID:
			if run.ProviderCallIndex >= 0 {
				ids = append(ids, conversation.ToolRoundID(from, run.ProviderCallIndex))
			}
			ids = append(ids, conversation.ResumedToolRoundID(from))
		case err != nil && !errors.Is(err, ports.ErrNotFound):
			return toolround.Round{}, false, storeErr("read resumed run", err)
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].ToolRoundID() != "" {
		ids = append(ids, msgs[n-1].ToolRoundID())
	}
	for _, id := range ids {
		round, err := r.e.rounds.Round(r.ctx, id)
		switch {
		case errors.Is(err, ports.ErrNotFound):
			continue
		case err != nil:
			return toolround.Round{}, false, storeErr("read tool round", err)
		case !round.Settled():
			return round, true, nil
		}
	}
	return toolround.Round{}, false, nil
}
