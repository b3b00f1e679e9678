package compaction

import (
	"fmt"
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// Split is a history divided for automatic compaction.
type Split struct {
	// Compactable is what the summary replaces, oldest first.
	Compactable []conversation.Message
	// LatestContexts are the latest request-context message of each
	// channel that is not one of Current, in history order; they are kept
	// verbatim ahead of the summary.
	LatestContexts []conversation.Message
	// Current are the current turn's initial messages, kept verbatim.
	Current []conversation.Message
}

// Partition splits history, the current checkpoint's list: the current
// turn's initial messages (named by currentIDs) and the latest
// request-context message of each channel are kept; every other message,
// older request contexts included, is compactable.
func Partition(history []conversation.Message, currentIDs []string) Split {
	var s Split
	latest := map[conversation.ContextChannel]int{}
	for i, m := range history {
		if ch, _, ok := conversation.ContextOf(m.ID()); ok {
			latest[ch] = i
		}
	}
	for i, m := range history {
		ch, _, isContext := conversation.ContextOf(m.ID())
		switch {
		case slices.Contains(currentIDs, m.ID()):
			s.Current = append(s.Current, m)
		case isContext && latest[ch] == i:
			s.LatestContexts = append(s.LatestContexts, m)
		default:
			s.Compactable = append(s.Compactable, m)
		}
	}
	return s
}

// Automatic is the layout of an automatic compaction: the latest request
// context of each channel, the summary, then the current turn's initial
// messages.
func Automatic(s Split, summary conversation.Message) []conversation.Message {
	out := append([]conversation.Message{}, s.LatestContexts...)
	out = append(out, summary)
	return append(out, s.Current...)
}

// Manual is the layout of /summarize: the summary alone. The next user turn
// projects its request context again, because history then holds none.
func Manual(summary conversation.Message) []conversation.Message {
	return []conversation.Message{summary}
}

// SummaryMessage wraps summary text in a runtime user message with the given
// id (conversation.ManualSummaryID or conversation.AutoSummaryID).
func SummaryMessage(id, text string) (conversation.Message, error) {
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime,
		"<conversation_summary>\n"+text+"\n</conversation_summary>")
	if err != nil {
		return conversation.Message{}, fmt.Errorf("build summary: %w", err)
	}
	return m, nil
}

// Preflight reports, before a model call, whether to compact first: false
// when the estimate fits the budget (or the window is unknown), true when it
// does not and something is compactable, and ErrIrreducible when nothing is,
// so an oversized current input fails before any provider call.
func Preflight(estimate, window int64, s Split) (bool, error) {
	if !Needed(estimate, window) {
		return false, nil
	}
	if len(s.Compactable) == 0 {
		return false, ErrIrreducible
	}
	return true, nil
}

// Fits checks a compacted request against the budget of window.
func Fits(estimate, window int64) error {
	if Needed(estimate, window) {
		return fmt.Errorf("%w: %d tokens over a budget of %d", ErrStillTooLarge, estimate, Budget(window))
	}
	return nil
}
