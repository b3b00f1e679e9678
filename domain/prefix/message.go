package prefix

import (
	"bytes"
	"fmt"

	"keygate/domain/llm"
)

// diffMessage returns the path of the first model-visible field where a and
// b differ, or "" when they are the same to a provider.
func diffMessage(a, b llm.Message) string {
	if a.Role != b.Role {
		return "role"
	}
	if f := diffParts(a.Parts, b.Parts); f != "" {
		return f
	}
	if (a.Assistant == nil) != (b.Assistant == nil) {
		return "assistant"
	}
	if a.Assistant != nil {
		if f := diffAssistant(*a.Assistant, *b.Assistant); f != "" {
			return "assistant." + f
		}
	}
	if (a.ToolResult == nil) != (b.ToolResult == nil) {
		return "tool_result"
	}
	if a.ToolResult != nil {
		if f := diffToolResult(*a.ToolResult, *b.ToolResult); f != "" {
			return "tool_result." + f
		}
	}
	return ""
}

func diffParts(a, b []llm.Part) string {
	if len(a) != len(b) {
		return "parts"
	}
	for i := range a {
		switch {
		case a[i].Kind != b[i].Kind:
			return fmt.Sprintf("parts[%d].kind", i)
		case a[i].Text != b[i].Text:
			return fmt.Sprintf("parts[%d].text", i)
		case diffImage(a[i].Image, b[i].Image):
			return fmt.Sprintf("parts[%d].image", i)
		}
	}
	return ""
}

func diffImage(a, b *llm.Image) bool {
	if a == nil || b == nil {
		return a != b
	}
	return a.MIMEType != b.MIMEType || a.BlobID != b.BlobID || a.Path != b.Path || !bytes.Equal(a.Data, b.Data)
}

func diffAssistant(a, b llm.Assistant) string {
	switch {
	case a.Text != b.Text:
		return "text"
	case a.Thinking != b.Thinking:
		return "thinking"
	case (a.Replay == nil) != (b.Replay == nil):
		return "replay"
	case a.Replay != nil && (a.Replay.Kind != b.Replay.Kind || !bytes.Equal(a.Replay.Value, b.Replay.Value)):
		return "replay"
	case len(a.Calls) != len(b.Calls):
		return "calls"
	}
	for i, c := range a.Calls {
		d := b.Calls[i]
		switch {
		case c.CallID != d.CallID:
			return fmt.Sprintf("calls[%d].call_id", i)
		case c.Name != d.Name:
			return fmt.Sprintf("calls[%d].name", i)
		case !bytes.Equal(c.Arguments, d.Arguments):
			return fmt.Sprintf("calls[%d].arguments", i)
		}
	}
	return ""
}

func diffToolResult(a, b llm.ToolResult) string {
	switch {
	case a.CallID != b.CallID:
		return "call_id"
	case a.Name != b.Name:
		return "name"
	case a.Content != b.Content:
		return "content"
	case a.IsError != b.IsError:
		return "is_error"
	case diffImage(a.Image, b.Image):
		return "image"
	}
	return ""
}
