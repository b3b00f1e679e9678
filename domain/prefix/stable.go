package prefix

import (
	"bytes"
	"fmt"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// IsStablePrefix reports whether next extends previous: the same model,
// cache key, instructions and tools (in order, byte for byte), and every
// message of previous unchanged at the same position in next. Message ids
// are ignored because they never reach a provider; a trailing transient tail
// of previous is ignored because it was never stored. Settings outside the
// prompt (output limit, reasoning, service tier) are not compared.
func IsStablePrefix(previous, next llm.Request) Report {
	outside := func(field string) Report {
		return Report{Divergence: &Divergence{Index: -1, Field: field, Cause: CauseChanged}}
	}
	switch {
	case previous.Model != next.Model:
		return outside("model")
	case previous.CacheKey != next.CacheKey:
		return outside("cache_key")
	case previous.Instructions != next.Instructions:
		return outside("instructions")
	}
	if f, cause := diffTools(previous.Tools, next.Tools); f != "" {
		r := outside(f)
		r.Divergence.Cause = cause
		return r
	}
	msgs, ignored := previous.Messages, false
	if n := len(msgs); n > 0 && isTransient(msgs[n-1].ID) {
		msgs, ignored = msgs[:n-1], true
	}
	for i, m := range msgs {
		d := &Divergence{Index: i, MessageID: m.ID}
		if i >= len(next.Messages) {
			d.Field, d.Cause = fmt.Sprintf("messages[%d]", i), CauseRemoved
			return Report{Common: i, IgnoredTail: ignored, Divergence: d}
		}
		if f := diffMessage(m, next.Messages[i]); f != "" {
			d.Field, d.Cause = fmt.Sprintf("messages[%d].%s", i, f), CauseChanged
			return Report{Common: i, IgnoredTail: ignored, Divergence: d}
		}
	}
	return Report{Stable: true, Common: len(msgs), IgnoredTail: ignored}
}

func isTransient(id string) bool {
	return id == conversation.ContinueID || id == conversation.CompactionInstructionID
}

func diffTools(prev, next []llm.Tool) (string, Cause) {
	for i, t := range prev {
		if i >= len(next) {
			return fmt.Sprintf("tools[%d]", i), CauseRemoved
		}
		n := next[i]
		switch {
		case t.Name != n.Name:
			return fmt.Sprintf("tools[%d].name", i), CauseChanged
		case t.Description != n.Description:
			return fmt.Sprintf("tools[%d].description", i), CauseChanged
		case !bytes.Equal(t.Parameters, n.Parameters):
			return fmt.Sprintf("tools[%d].parameters", i), CauseChanged
		}
	}
	if len(next) > len(prev) {
		// Tools come before every message, so an added tool breaks the
		// cache just like a changed one.
		return fmt.Sprintf("tools[%d]", len(prev)), CauseChanged
	}
	return "", 0
}
