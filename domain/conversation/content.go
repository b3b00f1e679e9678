package conversation

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"keygate/domain/llm"
)

// validate enforces the construction rules of a message: a non-empty id,
// content that fits the role, an origin that fits the role, valid UTF-8
// text, and well-formed tool calls and results.
func (m Message) validate() error {
	if m.id == "" {
		return invalidf("empty id")
	}
	if !utf8.ValidString(m.id) || !utf8.ValidString(m.runtimeEventID) || !utf8.ValidString(m.toolRoundID) {
		return invalidf("%q: ids must be valid UTF-8", m.id)
	}
	set := 0
	for _, present := range []bool{len(m.parts) > 0, m.assistant != nil, m.toolResult != nil} {
		if present {
			set++
		}
	}
	if set != 1 {
		return invalidf("%q: exactly one of parts, assistant and tool result must be set", m.id)
	}
	switch m.role {
	case llm.RoleSystem, llm.RoleUser:
		return m.validateParts()
	case llm.RoleAssistant:
		return m.validateAssistant()
	case llm.RoleTool:
		return m.validateToolResult()
	default:
		return invalidf("%q: unknown role %d", m.id, m.role)
	}
}

func (m Message) validateParts() error {
	if len(m.parts) == 0 {
		return invalidf("%q: a %s message needs parts", m.id, m.role)
	}
	switch {
	case m.origin == OriginPrompt:
	case m.role == llm.RoleUser && (m.origin == OriginUser || m.origin == OriginRuntime):
	default:
		return invalidf("%q: origin %s does not fit role %s", m.id, m.origin, m.role)
	}
	if m.toolRoundID != "" {
		return invalidf("%q: only assistant and tool messages belong to a tool round", m.id)
	}
	for _, p := range m.parts {
		switch p.Kind {
		case llm.PartText:
			if p.Image != nil || !utf8.ValidString(p.Text) {
				return invalidf("%q: a text part holds valid UTF-8 text only", m.id)
			}
		case llm.PartImage:
			if p.Image == nil || p.Text != "" {
				return invalidf("%q: an image part holds an image only", m.id)
			}
			if err := m.validateImage(p.Image); err != nil {
				return err
			}
			if len(p.Image.Data) == 0 && p.Image.BlobID == "" {
				return invalidf("%q: an image needs data or a blob id", m.id)
			}
		default:
			return invalidf("%q: unknown part kind %d", m.id, p.Kind)
		}
	}
	return nil
}

func (m Message) validateImage(img *llm.Image) error {
	if img.MIMEType == "" {
		return invalidf("%q: an image needs a MIME type", m.id)
	}
	if !utf8.ValidString(img.MIMEType) || !utf8.ValidString(img.BlobID) || !utf8.ValidString(img.Path) {
		return invalidf("%q: image fields must be valid UTF-8", m.id)
	}
	return nil
}

func (m Message) validateAssistant() error {
	a := m.assistant
	if a == nil {
		return invalidf("%q: an assistant message needs assistant content", m.id)
	}
	if m.origin != OriginAssistant {
		return invalidf("%q: origin %s does not fit role assistant", m.id, m.origin)
	}
	if !utf8.ValidString(a.Text) || !utf8.ValidString(a.Thinking) {
		return invalidf("%q: assistant text must be valid UTF-8", m.id)
	}
	if a.Replay != nil && a.Replay.Kind == "" {
		return invalidf("%q: replay state needs a provider kind", m.id)
	}
	if m.toolRoundID != "" && len(a.Calls) != 1 {
		return invalidf("%q: a tool-round part holds exactly one call", m.id)
	}
	indexes := make(map[int]bool, len(a.Calls))
	callIDs := make(map[string]bool, len(a.Calls))
	for _, c := range a.Calls {
		if c.CallID == "" || c.Name == "" {
			return invalidf("%q: a tool call needs a call id and a name", m.id)
		}
		if indexes[c.Index] || callIDs[c.CallID] || c.Index < 0 {
			return invalidf("%q: tool call indexes and ids must be distinct and non-negative", m.id)
		}
		indexes[c.Index], callIDs[c.CallID] = true, true
		if !utf8.ValidString(c.CallID) || !utf8.ValidString(c.Name) || !utf8.ValidString(c.ArgumentError) ||
			!utf8.Valid(c.Arguments) || !json.Valid(c.Arguments) {
			return invalidf("%q: tool call %q has invalid arguments or fields", m.id, c.CallID)
		}
	}
	return nil
}

func (m Message) validateToolResult() error {
	r := m.toolResult
	if r == nil {
		return invalidf("%q: a tool message needs a tool result", m.id)
	}
	if m.origin != OriginTool {
		return invalidf("%q: origin %s does not fit role tool", m.id, m.origin)
	}
	if r.CallID == "" {
		return invalidf("%q: a tool result needs a call id", m.id)
	}
	if !utf8.ValidString(r.CallID) || !utf8.ValidString(r.Name) || !utf8.ValidString(r.Content) {
		return invalidf("%q: tool result fields must be valid UTF-8", m.id)
	}
	if r.Image != nil {
		if err := m.validateImage(r.Image); err != nil {
			return err
		}
		// Tool images are stored by reference; their bytes are hydrated
		// into the provider view only.
		if r.Image.BlobID == "" || len(r.Image.Data) != 0 {
			return invalidf("%q: a stored tool-result image has a blob id and no data", m.id)
		}
	}
	return nil
}

func cloneParts(parts []llm.Part) []llm.Part {
	if len(parts) == 0 {
		return nil
	}
	out := make([]llm.Part, len(parts))
	for i, p := range parts {
		out[i] = llm.Part{Kind: p.Kind, Text: p.Text, Image: cloneImage(p.Image)}
	}
	return out
}

func cloneImage(img *llm.Image) *llm.Image {
	if img == nil {
		return nil
	}
	c := *img
	c.Data = bytes.Clone(img.Data)
	return &c
}

func cloneAssistant(a *llm.Assistant) *llm.Assistant {
	if a == nil {
		return nil
	}
	c := *a
	if a.Replay != nil {
		r := *a.Replay
		r.Value = bytes.Clone(a.Replay.Value)
		c.Replay = &r
	}
	c.Calls = nil
	if len(a.Calls) > 0 {
		c.Calls = make([]llm.ToolCall, len(a.Calls))
		for i, call := range a.Calls {
			call.Arguments = bytes.Clone(call.Arguments)
			c.Calls[i] = call
		}
	}
	return &c
}

func cloneToolResult(r *llm.ToolResult) *llm.ToolResult {
	if r == nil {
		return nil
	}
	c := *r
	c.Image = cloneImage(r.Image)
	return &c
}
