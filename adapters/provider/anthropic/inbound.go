package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// ErrInvalidRequest means a caller's request body is not a Messages
// request Keygate can serve; its text says what is wrong.
var ErrInvalidRequest = errors.New("invalid request")

// Inbound is a Messages request a caller sent to Keygate's compatible API.
type Inbound struct {
	// Model is the model field as sent.
	Model string
	// Stream is whether the caller asked for a stream of events.
	Stream bool
	// Request is the translation, with the caller's body as its Native.
	Request llm.Request
}

type inRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []inMessage     `json:"messages"`
	Tools     []inTool        `json:"tools"`
	Stream    bool            `json:"stream"`
	Thinking  *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	OutputConfig *struct {
		Effort string `json:"effort"`
	} `json:"output_config"`
}

type inMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type inBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Source    *inSource       `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type inSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

type inTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ParseInbound reads a Messages request body into the provider-independent
// request: the system prompt, messages (a system-role entry among them
// stays a system message; tool_result blocks become tool messages before
// the user's other content), custom tools (Anthropic-defined and server
// tools are left out of a translated call), thinking and effort,
// max_tokens. Signed thinking blocks ride as Anthropic replay state, so
// they reach an Anthropic target and no other. betas is the caller's
// anthropic-beta header.
func ParseInbound(body []byte, betas string) (Inbound, error) {
	var in inRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Inbound{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if in.Model == "" {
		return Inbound{}, fmt.Errorf("%w: model: field required", ErrInvalidRequest)
	}
	req := llm.Request{Model: in.Model, MaxOutputTokens: in.MaxTokens}
	sys, err := systemText(in.System)
	if err != nil {
		return Inbound{}, err
	}
	req.Instructions = sys
	for i, m := range in.Messages {
		msgs, err := inboundMessage(m)
		if err != nil {
			return Inbound{}, fmt.Errorf("%w: messages.%d: %w", ErrInvalidRequest, i, err)
		}
		req.Messages = append(req.Messages, msgs...)
	}
	for _, t := range in.Tools {
		if len(t.InputSchema) == 0 || (t.Type != "" && t.Type != "custom") {
			continue
		}
		req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if in.Thinking != nil && in.Thinking.Type != "" && in.Thinking.Type != "disabled" {
		req.Reasoning.Enabled = true
	}
	if in.OutputConfig != nil {
		req.Reasoning.Effort = in.OutputConfig.Effort
	}
	n := &llm.Native{Kind: llm.ProviderAnthropic, Body: body}
	if betas != "" {
		n.Headers = map[string]string{"anthropic-beta": betas}
	}
	req.Native = n
	return Inbound{Model: in.Model, Stream: in.Stream, Request: req}, nil
}

// systemText is the system field as text: a string, or text blocks joined.
func systemText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if isString(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%w: system: %w", ErrInvalidRequest, err)
		}
		return s, nil
	}
	var blocks []inBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", fmt.Errorf("%w: system: %w", ErrInvalidRequest, err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(bl.Text)
	}
	return b.String(), nil
}

// isString reports whether raw JSON is a string (looked at once, not
// decoded twice: a long history is read in one pass).
func isString(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '"'
	}
	return false
}

// blocksOf reads content given as a string or a list of blocks.
func blocksOf(raw json.RawMessage) ([]inBlock, error) {
	if isString(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []inBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []inBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

func inboundMessage(m inMessage) ([]llm.Message, error) {
	blocks, err := blocksOf(m.Content)
	if err != nil {
		return nil, err
	}
	switch m.Role {
	case "assistant":
		return []llm.Message{{Role: llm.RoleAssistant, Assistant: inboundAssistant(blocks)}}, nil
	case "user", "system":
		role := llm.RoleUser
		if m.Role == "system" {
			role = llm.RoleSystem
		}
		var out []llm.Message
		var parts []llm.Part
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				r, err := toolResult(b)
				if err != nil {
					return nil, err
				}
				out = append(out, llm.Message{Role: llm.RoleTool, ToolResult: r})
			case "text":
				parts = append(parts, llm.Part{Kind: llm.PartText, Text: b.Text})
			case "image":
				parts = append(parts, imagePart(b.Source))
			}
		}
		if len(parts) > 0 {
			out = append(out, llm.Message{Role: role, Parts: parts})
		}
		return out, nil
	default:
		return nil, fmt.Errorf("role %q: want user, assistant or system", m.Role)
	}
}

func inboundAssistant(blocks []inBlock) *llm.Assistant {
	a := &llm.Assistant{}
	var replay wire.Writer
	signed := 0
	for _, b := range blocks {
		switch b.Type {
		case "text":
			a.Text += b.Text
		case "thinking", "redacted_thinking":
			a.Thinking += b.Thinking
			if b.Signature == "" && b.Data == "" {
				continue
			}
			if signed == 0 {
				replay.BeginObject()
				replay.Key("blocks")
				replay.BeginArray()
			}
			signed++
			replay.BeginObject()
			replay.StringField("type", b.Type)
			if b.Type == "thinking" {
				replay.StringField("thinking", b.Thinking)
				replay.StringField("signature", b.Signature)
			} else {
				replay.StringField("data", b.Data)
			}
			replay.EndObject()
		case "tool_use":
			args := []byte(b.Input)
			if len(args) == 0 || string(args) == "null" {
				args = []byte("{}")
			}
			a.Calls = append(a.Calls, llm.ToolCall{Index: len(a.Calls), CallID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	if signed > 0 {
		replay.EndArray()
		replay.EndObject()
		a.Replay = &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: replay.B}
	}
	return a
}

func toolResult(b inBlock) (*llm.ToolResult, error) {
	r := &llm.ToolResult{CallID: b.ToolUseID, IsError: b.IsError}
	if len(b.Content) == 0 || string(b.Content) == "null" {
		return r, nil
	}
	inner, err := blocksOf(b.Content)
	if err != nil {
		return nil, fmt.Errorf("tool_result content: %w", err)
	}
	var text strings.Builder
	for _, c := range inner {
		switch c.Type {
		case "text":
			if text.Len() > 0 {
				text.WriteString("\n")
			}
			text.WriteString(c.Text)
		case "image":
			if p := imagePart(c.Source); p.Image != nil && r.Image == nil {
				r.Image = p.Image
			}
		}
	}
	r.Content = text.String()
	return r, nil
}

// imagePart is an image block as a part: inline data decoded, a URL image
// (which no other protocol's request carries here) named as text.
func imagePart(s *inSource) llm.Part {
	if s == nil {
		return llm.Part{Kind: llm.PartText, Text: "[image]"}
	}
	if s.Type == "base64" {
		if data, err := base64.StdEncoding.DecodeString(s.Data); err == nil {
			return llm.Part{Kind: llm.PartImage, Image: &llm.Image{MIMEType: s.MediaType, Data: data}}
		}
	}
	return llm.Part{Kind: llm.PartText, Text: "[image: " + s.URL + "]"}
}
