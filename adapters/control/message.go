package control

import (
	"fmt"
	"strings"

	"keygate/domain/llm"
)

// messageText renders a message as readable text for the conversation
// view: user and system parts, assistant text and tool calls, tool results.
// Images are named, not embedded.
func messageText(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == llm.PartImage && p.Image != nil {
			fmt.Fprintf(&b, "[image %s]\n", p.Image.MIMEType)
			continue
		}
		b.WriteString(p.Text)
	}
	if a := m.Assistant; a != nil {
		if a.Thinking != "" {
			fmt.Fprintf(&b, "(thinking) %s\n\n", a.Thinking)
		}
		b.WriteString(a.Text)
		for _, c := range a.Calls {
			fmt.Fprintf(&b, "\n→ %s(%s)", c.Name, c.Arguments)
		}
	}
	if r := m.ToolResult; r != nil {
		if r.IsError {
			b.WriteString("(error) ")
		}
		fmt.Fprintf(&b, "%s → %s", r.Name, r.Content)
	}
	return b.String()
}
