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
	// LatestContext is the latest request-context message when it is not
	// one of Current; it is kept verbatim ahead of the summary.
	LatestContext *conversation.Message
	// Current are the current turn's initial messages, kept verbatim.
	Current []conversation.Message
}

// Partition splits history, the current checkpoint's list: the current
// turn's initial messages (named by currentIDs) and the latest
// request-context message are kept; every other message, older request
// contexts included, is compactable.
func Partition(history []conversation.Message, currentIDs []string) Split {
	var s Split
	latest := -1
	for i, m := range history {
		if _, ok := conversation.RequestContextEvent(m.ID()); ok {
			latest = i
		}
	}
	for i, m := range history {
		switch {
		case slices.Contains(currentIDs, m.ID()):
			s.Current = append(s.Current, m)
		case i == latest:
			kept := m
			s.LatestContext = &kept
		default:
			s.Compactable = append(s.Compactable, m)
		}
	}
	return s
}

// Automatic is the layout of an automatic compaction: the latest request
// context, the summary, then the current turn's initial messages.
func Automatic(s Split, summary conversation.Message) []conversation.Message {
	var out []conversation.Message
	if s.LatestContext != nil {
		out = append(out, *s.LatestContext)
	}
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
