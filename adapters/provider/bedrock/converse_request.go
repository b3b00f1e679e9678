package bedrock

import (
	"encoding/json"
	"fmt"
	"strings"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// item is one content block of a merged Converse message, a reference to
// where it came from so the body is written in one pass.
type item struct {
	text   *string
	image  *llm.Image
	call   *llm.ToolCall
	result *llm.ToolResult
	reason *reasoningBlock
}

type message struct {
	role  string
	items []item
}

// reasoningBlock is one reasoningContent block of an assistant turn, kept as
// replay state: Bedrock requires a Claude turn's signed reasoning back
// before its tool results.
type reasoningBlock struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

// replayState is the Value of a bedrock_converse llm.ReplayState.
type replayState struct {
	Reasoning []reasoningBlock `json:"reasoning"`
}

// caches reports whether model takes cachePoint blocks: Bedrock documents
// prompt caching for Anthropic Claude and Amazon Nova models, and refuses
// the block on the others.
func caches(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "anthropic.claude") || strings.Contains(m, "amazon.nova")
}

// claude reports a Claude model, whose reasoning is switched on through
// additionalModelRequestFields.
func claude(model string) bool { return strings.Contains(strings.ToLower(model), "anthropic.claude") }

// thinkingBudget maps an effort onto Claude's thinking budget in tokens.
func thinkingBudget(effort string) int {
	switch effort {
	case "low", "minimal":
		return 2048
	case "high":
		return 16384
	case "xhigh", "max":
		return 32000
	}
	return 8192
}

// AppendConverse appends the ConverseStream body of req to dst.
//
// Field order: system, toolConfig, inferenceConfig,
// additionalModelRequestFields, messages, then configured extras: messages
// come last, so a conversation extended by a turn gives a body whose bytes
// up to its last message extend the previous body's. On models that cache
// (Claude, Nova), a cachePoint follows the system prompt and the tools,
// which every turn shares. Roles alternate user and assistant; system and
// tool messages are user turns and consecutive messages of one role merge.
func AppendConverse(dst []byte, req llm.Request, extras *wire.Extras) ([]byte, error) {
	if err := protocol.RefuseFillIn(label, req); err != nil {
		return dst, err
	}
	msgs, err := group(req.Messages)
	if err != nil {
		return dst, err
	}
	cache := caches(req.Model)
	w := wire.Writer{B: dst}
	w.BeginObject()
	if req.Instructions != "" {
		w.Key("system")
		w.BeginArray()
		w.BeginObject()
		w.StringField("text", req.Instructions)
		w.EndObject()
		if cache {
			writeCachePoint(&w)
		}
		w.EndArray()
	}
	if len(req.Tools) > 0 {
		w.Key("toolConfig")
		w.BeginObject()
		w.Key("tools")
		w.BeginArray()
		for _, t := range req.Tools {
			w.BeginObject()
			w.Key("toolSpec")
			w.BeginObject()
			w.StringField("name", t.Name)
			if t.Description != "" {
				w.StringField("description", t.Description)
			}
			w.Key("inputSchema")
			w.BeginObject()
			w.Key("json")
			params := t.Parameters
			if len(params) == 0 {
				params = []byte(`{"type":"object","properties":{}}`)
			}
			if err := w.Raw(params); err != nil {
				return dst, fmt.Errorf("write tool %q schema: %w", t.Name, err)
			}
			w.EndObject()
			w.EndObject()
			w.EndObject()
		}
		if cache {
			writeCachePoint(&w)
		}
		w.EndArray()
		w.EndObject()
	}
	thinking := req.Reasoning.Enabled && claude(req.Model)
	maxTokens := req.MaxOutputTokens
	if thinking && maxTokens <= thinkingBudget(req.Reasoning.Effort) {
		maxTokens = thinkingBudget(req.Reasoning.Effort) + 8192
	}
	if maxTokens > 0 && w.Field(extras, "inferenceConfig") {
		w.BeginObject()
		w.Key("maxTokens")
		w.Int(int64(maxTokens))
		w.EndObject()
	}
	if thinking && w.Field(extras, "additionalModelRequestFields") {
		w.BeginObject()
		w.Key("thinking")
		w.BeginObject()
		w.StringField("type", "enabled")
		w.Key("budget_tokens")
		w.Int(int64(thinkingBudget(req.Reasoning.Effort)))
		w.EndObject()
		w.EndObject()
	}
	w.Key("messages")
	w.BeginArray()
	for i := range msgs {
		if err := writeMessage(&w, &msgs[i]); err != nil {
			return dst, err
		}
	}
	w.EndArray()
	w.Rest(extras)
	w.EndObject()
	return w.B, nil
}

func writeCachePoint(w *wire.Writer) {
	w.BeginObject()
	w.Key("cachePoint")
	w.BeginObject()
	w.StringField("type", "default")
	w.EndObject()
	w.EndObject()
}

// group merges the history into alternating messages.
func group(msgs []llm.Message) ([]message, error) {
	var out []message
	add := func(role string, it item) {
		if n := len(out); n > 0 && out[n-1].role == role {
			out[n-1].items = append(out[n-1].items, it)
			return
		}
		out = append(out, message{role: role, items: []item{it}})
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
			for pi := range m.Parts {
				p := &m.Parts[pi]
				if p.Kind == llm.PartImage && p.Image != nil {
					add("user", item{image: p.Image})
				} else {
					add("user", item{text: &p.Text})
				}
			}
		case llm.RoleTool:
			if m.ToolResult == nil {
				return nil, fmt.Errorf("group message %d: tool message without result", i)
			}
			add("user", item{result: m.ToolResult})
		case llm.RoleAssistant:
			a := m.Assistant
			if a == nil {
				return nil, fmt.Errorf("group message %d: assistant message without content", i)
			}
			if a.Replay != nil && a.Replay.Kind == llm.ProviderBedrockConverse {
				var st replayState
				if err := json.Unmarshal(a.Replay.Value, &st); err != nil {
					return nil, fmt.Errorf("group message %d: read replay state: %w", i, err)
				}
				for ri := range st.Reasoning {
					add("assistant", item{reason: &st.Reasoning[ri]})
				}
			}
			if a.Text != "" {
				add("assistant", item{text: &a.Text})
			}
			for ci := range a.Calls {
				add("assistant", item{call: &a.Calls[ci]})
			}
		default:
			return nil, fmt.Errorf("group message %d: unknown role %d", i, m.Role)
		}
	}
	return out, nil
}

func writeMessage(w *wire.Writer, m *message) error {
	w.BeginObject()
	w.StringField("role", m.role)
	w.Key("content")
	w.BeginArray()
	for i := range m.items {
		it := &m.items[i]
		w.BeginObject()
		switch {
		case it.text != nil:
			w.StringField("text", *it.text)
		case it.image != nil:
			writeImage(w, it.image)
		case it.reason != nil:
			w.Key("reasoningContent")
			w.BeginObject()
			w.Key("reasoningText")
			w.BeginObject()
			w.StringField("text", it.reason.Text)
			if it.reason.Signature != "" {
				w.StringField("signature", it.reason.Signature)
			}
			w.EndObject()
			w.EndObject()
		case it.call != nil:
			w.Key("toolUse")
			w.BeginObject()
			w.StringField("toolUseId", it.call.CallID)
			w.StringField("name", it.call.Name)
			w.Key("input")
			args := it.call.Arguments
			if len(args) == 0 || !json.Valid(args) || args[0] != '{' {
				args = []byte("{}")
			}
			if err := w.Raw(args); err != nil {
				return fmt.Errorf("write tool call %q: %w", it.call.Name, err)
			}
			w.EndObject()
		case it.result != nil:
			r := it.result
			w.Key("toolResult")
			w.BeginObject()
			w.StringField("toolUseId", r.CallID)
			w.Key("content")
			w.BeginArray()
			w.BeginObject()
			w.StringField("text", r.Content)
			w.EndObject()
			if r.Image != nil {
				w.BeginObject()
				writeImage(w, r.Image)
				w.EndObject()
			}
			w.EndArray()
			if r.IsError {
				w.StringField("status", "error")
			}
			w.EndObject()
		}
		w.EndObject()
	}
	w.EndArray()
	w.EndObject()
	return nil
}

// writeImage writes an image block: Bedrock takes png, jpeg, gif and webp
// as raw bytes (base64 in JSON).
func writeImage(w *wire.Writer, img *llm.Image) {
	format := strings.TrimPrefix(strings.ToLower(img.MIMEType), "image/")
	if format == "jpg" {
		format = "jpeg"
	}
	w.Key("image")
	w.BeginObject()
	w.StringField("format", format)
	w.Key("source")
	w.BeginObject()
	w.Key("bytes")
	w.Base64(img.Data)
	w.EndObject()
	w.EndObject()
}
