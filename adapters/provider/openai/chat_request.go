package openai

import (
	"encoding/json"
	"fmt"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// AppendChat appends the Chat Completions body of req to dst.
//
// Field order: model, messages, tools, stream, stream_options,
// max_completion_tokens, reasoning_effort or the vendor's thinking switch,
// service_tier, prompt_cache_key, then configured extras. tool_choice is never
// sent (the provider default is "auto").
func AppendChat(dst []byte, req llm.Request, o Options) ([]byte, error) {
	if err := protocol.RefuseFillIn(chatLabel, req); err != nil {
		return dst, err
	}
	if n := req.Native; n != nil && n.Kind == llm.ProviderOpenAIChat {
		return wire.Native(dst, n.Body, []wire.Member{
			{Key: "model", Value: wire.AppendString(nil, req.Model)},
			{Key: "stream", Value: []byte("true")},
			{Key: "stream_options", Value: []byte(`{"include_usage":true}`)},
		}, o.Extras)
	}
	w := wire.Writer{B: dst}
	w.BeginObject()
	w.StringField("model", req.Model)
	w.Key("messages")
	w.BeginArray()
	if req.Instructions != "" {
		w.BeginObject()
		w.StringField("role", "system")
		w.StringField("content", req.Instructions)
		w.EndObject()
	}
	if err := writeChatHistory(&w, req.Messages, o.Quirks); err != nil {
		return dst, err
	}
	w.EndArray()
	if len(req.Tools) > 0 {
		w.Key("tools")
		w.BeginArray()
		for _, t := range req.Tools {
			w.BeginObject()
			w.StringField("type", "function")
			w.Key("function")
			w.BeginObject()
			w.StringField("name", t.Name)
			if t.Description != "" {
				w.StringField("description", t.Description)
			}
			w.Key("parameters")
			if err := writeParameters(&w, t.Parameters, o.Quirks.Kimi); err != nil {
				return dst, fmt.Errorf("write tool %q parameters: %w", t.Name, err)
			}
			w.EndObject()
			w.EndObject()
		}
		w.EndArray()
	}
	w.Key("stream")
	w.Bool(true)
	if w.Field(o.Extras, "stream_options") {
		w.BeginObject()
		w.Key("include_usage")
		w.Bool(true)
		w.EndObject()
	}
	if req.MaxOutputTokens > 0 && w.Field(o.Extras, "max_completion_tokens") {
		w.Int(int64(req.MaxOutputTokens))
	}
	writeChatReasoning(&w, req.Reasoning, o)
	if req.ServiceTier != "" && w.Field(o.Extras, "service_tier") {
		w.String(serviceTier(req.ServiceTier))
	}
	if req.CacheKey != "" && !o.Quirks.NoCacheKey {
		w.StringField("prompt_cache_key", CacheKey(req.CacheKey))
	}
	w.Rest(o.Extras)
	w.EndObject()
	return w.B, nil
}

// writeChatReasoning writes the effort, or the vendor's switch to turn
// thinking off when the request asks for none.
func writeChatReasoning(w *wire.Writer, r llm.Reasoning, o Options) {
	off := !r.Enabled && r.Effort == ""
	switch {
	case off && o.Quirks.Disable == compat.DisableThinkingType:
		if w.Field(o.Extras, "thinking") {
			w.BeginObject()
			w.StringField("type", "disabled")
			w.EndObject()
		}
	case off && o.Quirks.Disable == compat.DisableEnableThinking:
		if w.Field(o.Extras, "enable_thinking") {
			w.Bool(false)
		}
	case off && o.Quirks.Disable == compat.DisableReasoningNone:
		if w.Field(o.Extras, "reasoning") {
			w.BeginObject()
			w.StringField("effort", "none")
			w.EndObject()
		}
	case r.Effort != "":
		if w.Field(o.Extras, "reasoning_effort") {
			w.String(r.Effort)
		}
	}
}

// writeChatHistory writes the projected messages. Images a tool returned go
// into one user message after the run of tool messages, because Chat tool
// messages carry text only and tool messages must follow their assistant turn
// without a gap.
func writeChatHistory(w *wire.Writer, msgs []llm.Message, q compat.Quirks) error {
	var pending []*llm.ToolResult
	flush := func() {
		if len(pending) == 0 {
			return
		}
		w.BeginObject()
		w.StringField("role", "user")
		w.Key("content")
		w.BeginArray()
		for _, tr := range pending {
			w.BeginObject()
			w.StringField("type", "text")
			w.StringField("text", "Image returned by tool call "+tr.CallID+":")
			w.EndObject()
			writeImageURL(w, tr.Image)
		}
		w.EndArray()
		w.EndObject()
		pending = pending[:0]
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Role != llm.RoleTool {
			flush()
		}
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
			w.BeginObject()
			w.StringField("role", m.Role.String())
			w.Key("content")
			writeChatParts(w, m.Parts)
			w.EndObject()
		case llm.RoleAssistant:
			if m.Assistant == nil {
				return fmt.Errorf("write message %d: assistant message without content", i)
			}
			if err := writeChatAssistant(w, m.Assistant, q); err != nil {
				return fmt.Errorf("write message %d: %w", i, err)
			}
		case llm.RoleTool:
			tr := m.ToolResult
			if tr == nil {
				return fmt.Errorf("write message %d: tool message without result", i)
			}
			w.BeginObject()
			w.StringField("role", "tool")
			w.StringField("tool_call_id", tr.CallID)
			w.StringField("content", tr.Content)
			w.EndObject()
			if tr.Image != nil {
				pending = append(pending, tr)
			}
		default:
			return fmt.Errorf("write message %d: unknown role %d", i, m.Role)
		}
	}
	flush()
	return nil
}

// writeChatParts writes a content string when the content is one text part,
// else an array of text and image_url parts.
func writeChatParts(w *wire.Writer, parts []llm.Part) {
	if len(parts) == 1 && parts[0].Kind == llm.PartText {
		w.String(parts[0].Text)
		return
	}
	w.BeginArray()
	for _, p := range parts {
		switch p.Kind {
		case llm.PartText:
			w.BeginObject()
			w.StringField("type", "text")
			w.StringField("text", p.Text)
			w.EndObject()
		case llm.PartImage:
			writeImageURL(w, p.Image)
		}
	}
	w.EndArray()
}

func writeImageURL(w *wire.Writer, img *llm.Image) {
	w.BeginObject()
	w.StringField("type", "image_url")
	w.Key("image_url")
	w.BeginObject()
	w.Key("url")
	w.DataURL(img.MIMEType, img.Data)
	w.EndObject()
	w.EndObject()
}

// writeChatAssistant writes an assistant turn, or nothing when the turn has
// no text, no calls and no reasoning to replay (Chat rejects empty ones).
func writeChatAssistant(w *wire.Writer, a *llm.Assistant, q compat.Quirks) error {
	reasoning, haveReasoning, extra, err := chatReplay(a, q)
	if err != nil {
		return err
	}
	if a.Text == "" && len(a.Calls) == 0 && (!haveReasoning || q.Kimi) {
		return nil
	}
	w.BeginObject()
	w.StringField("role", "assistant")
	w.Key("content")
	if a.Text == "" {
		w.Null()
	} else {
		w.String(a.Text)
	}
	if haveReasoning {
		w.StringField("reasoning_content", reasoning)
	}
	if len(a.Calls) > 0 {
		w.Key("tool_calls")
		w.BeginArray()
		for _, c := range a.Calls {
			w.BeginObject()
			w.StringField("id", c.CallID)
			w.StringField("type", "function")
			w.Key("function")
			w.BeginObject()
			w.StringField("name", c.Name)
			w.Key("arguments")
			w.String(string(arguments(c.Arguments)))
			w.EndObject()
			if raw, ok := extra[c.CallID]; ok {
				w.Key("extra_content")
				if err := w.Raw(raw); err != nil {
					return fmt.Errorf("replay extra_content of call %s: %w", c.CallID, err)
				}
			}
			w.EndObject()
		}
		w.EndArray()
	}
	w.EndObject()
	return nil
}

// chatReplay decides the reasoning_content of an assistant turn: the
// native value when the turn came from Chat; for DeepSeek the plain thinking
// text otherwise, and "" on a tool turn without any, because DeepSeek rejects
// tool turns without it. Other models never get foreign reasoning. It also
// returns the calls' extra_content by call id, for Gemini's endpoint only.
func chatReplay(a *llm.Assistant, q compat.Quirks) (string, bool, map[string]json.RawMessage, error) {
	if a.Replay != nil && a.Replay.Kind == llm.ProviderOpenAIChat {
		var v struct {
			ReasoningContent *string                    `json:"reasoning_content"`
			ExtraContent     map[string]json.RawMessage `json:"extra_content"`
		}
		if err := json.Unmarshal(a.Replay.Value, &v); err != nil {
			return "", false, nil, fmt.Errorf("read chat replay state: %w", err)
		}
		if !q.GeminiOpenAI {
			v.ExtraContent = nil
		}
		if v.ReasoningContent != nil {
			return *v.ReasoningContent, true, v.ExtraContent, nil
		}
		if !q.DeepSeek {
			return "", false, v.ExtraContent, nil
		}
	}
	if q.DeepSeek && (a.Thinking != "" || len(a.Calls) > 0) {
		return a.Thinking, true, nil, nil
	}
	return "", false, nil, nil
}

// serviceTier is the service_tier value of a request's tier: the fast tier
// is OpenAI's priority processing; other values pass through.
func serviceTier(t string) string {
	if t == llm.ServiceTierFast {
		return "priority"
	}
	return t
}
