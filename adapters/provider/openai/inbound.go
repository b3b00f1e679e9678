package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// ErrInvalidRequest means a caller's request body is not a request
// Keygate can serve; its text says what is wrong.
var ErrInvalidRequest = errors.New("invalid request")

// Inbound is a Chat Completions or Responses request a caller sent to
// Keygate's compatible API.
type Inbound struct {
	// Model is the model field as sent.
	Model string
	// Stream is whether the caller asked for a stream of events.
	Stream bool
	// StreamUsage is Chat's stream_options.include_usage.
	StreamUsage bool
	// CacheKey is the caller's prompt_cache_key.
	CacheKey string
	// Request is the translation, with the caller's body as its Native.
	Request llm.Request
	// Dropped names the caller's tools a translated call leaves out
	// (hosted tools).
	Dropped []string
}

type chatIn struct {
	Model               string      `json:"model"`
	Messages            []chatInMsg `json:"messages"`
	Tools               []chatTool  `json:"tools"`
	Stream              bool        `json:"stream"`
	MaxTokens           int         `json:"max_tokens"`
	MaxCompletionTokens int         `json:"max_completion_tokens"`
	ReasoningEffort     string      `json:"reasoning_effort"`
	PromptCacheKey      string      `json:"prompt_cache_key"`
	ServiceTier         string      `json:"service_tier"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type chatInMsg struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type inPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// ParseChat reads a Chat Completions request body: leading system and
// developer messages become the instructions, later ones system messages;
// tool messages tool results; image_url parts images (data URLs decoded,
// other URLs named as text); function tools; max_tokens,
// reasoning_effort, prompt_cache_key and service_tier.
func ParseChat(body []byte) (Inbound, error) {
	var in chatIn
	if err := json.Unmarshal(body, &in); err != nil {
		return Inbound{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if in.Model == "" {
		return Inbound{}, fmt.Errorf("%w: model is required", ErrInvalidRequest)
	}
	req := llm.Request{Model: in.Model, MaxOutputTokens: in.MaxCompletionTokens, ServiceTier: in.ServiceTier,
		Native: &llm.Native{Kind: llm.ProviderOpenAIChat, Body: body}}
	if req.MaxOutputTokens == 0 {
		req.MaxOutputTokens = in.MaxTokens
	}
	if in.ReasoningEffort != "" {
		req.Reasoning = llm.Reasoning{Enabled: in.ReasoningEffort != "none", Effort: in.ReasoningEffort}
	}
	var instructions []string
	for i, m := range in.Messages {
		parts, err := chatParts(m.Content)
		if err != nil {
			return Inbound{}, fmt.Errorf("%w: messages[%d].content: %w", ErrInvalidRequest, i, err)
		}
		switch m.Role {
		case "system", "developer":
			if len(req.Messages) == 0 {
				instructions = append(instructions, partsText(parts))
				continue
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Parts: parts})
		case "user":
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Parts: parts})
		case "assistant":
			a := &llm.Assistant{Text: partsText(parts), Thinking: m.ReasoningContent}
			for j, c := range m.ToolCalls {
				a.Calls = append(a.Calls, llm.ToolCall{Index: j, CallID: c.ID, Name: c.Function.Name, Arguments: argsOf(c.Function.Arguments)})
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Assistant: a})
		case "tool":
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool,
				ToolResult: &llm.ToolResult{CallID: m.ToolCallID, Content: partsText(parts)}})
		default:
			return Inbound{}, fmt.Errorf("%w: messages[%d].role %q", ErrInvalidRequest, i, m.Role)
		}
	}
	req.Instructions = strings.Join(instructions, "\n\n")
	var dropped []string
	for _, t := range in.Tools {
		if t.Type != "function" {
			dropped = append(dropped, t.Type)
			continue
		}
		req.Tools = append(req.Tools, llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	req.CacheKey = in.PromptCacheKey
	out := Inbound{Model: in.Model, Stream: in.Stream, CacheKey: in.PromptCacheKey, Request: req, Dropped: dropped}
	out.StreamUsage = in.StreamOptions != nil && in.StreamOptions.IncludeUsage
	return out, nil
}

// argsOf is a call's arguments as a JSON object, "{}" when not one.
func argsOf(s string) []byte {
	if wire.IsObject([]byte(s)) {
		return []byte(s)
	}
	return []byte("{}")
}

// chatParts reads content given as a string or a list of parts.
func chatParts(raw json.RawMessage) ([]llm.Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if isString(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []llm.Part{{Kind: llm.PartText, Text: s}}, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	out := make([]llm.Part, 0, len(parts))
	for _, p := range parts {
		var ip inPart
		if err := json.Unmarshal(p, &ip); err != nil {
			return nil, err
		}
		switch ip.Type {
		case "text", "input_text", "output_text":
			out = append(out, llm.Part{Kind: llm.PartText, Text: ip.Text})
		case "image_url":
			if ip.ImageURL != nil {
				out = append(out, urlImage(ip.ImageURL.URL))
			}
		case "input_image":
			var v struct {
				ImageURL string `json:"image_url"`
			}
			_ = json.Unmarshal(p, &v)
			out = append(out, urlImage(v.ImageURL))
		}
	}
	return out, nil
}

// isString reports whether raw JSON is a string, without decoding it.
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

// urlImage is an image given by URL: a data URL's bytes, else the URL
// named as text (a request of another protocol carries no image URL here).
func urlImage(u string) llm.Part {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if mime, data, ok := strings.Cut(rest, ";base64,"); ok {
			if b, err := base64.StdEncoding.DecodeString(data); err == nil {
				return llm.Part{Kind: llm.PartImage, Image: &llm.Image{MIMEType: mime, Data: b}}
			}
		}
	}
	return llm.Part{Kind: llm.PartText, Text: "[image: " + u + "]"}
}

func partsText(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
