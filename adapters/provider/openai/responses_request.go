package openai

import (
	"encoding/json"
	"fmt"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// AppendResponses appends the Responses body of req to dst.
//
// Field order: model, instructions, input, tools, include, stream,
// max_output_tokens, reasoning, service_tier, prompt_cache_key, extras.
// store is left to the provider default; encrypted reasoning is requested so
// reasoning items can be replayed without server-side state.
func AppendResponses(dst []byte, req llm.Request, o Options) ([]byte, error) {
	if err := protocol.RefuseFillIn(responsesLabel, req); err != nil {
		return dst, err
	}
	if n := req.Native; n != nil && n.Kind == llm.ProviderOpenAIResponses {
		set := []wire.Member{
			{Key: "model", Value: wire.AppendString(nil, req.Model)},
			{Key: "stream", Value: []byte("true")},
		}
		if tools, ok := ClientTools(n.Body); ok {
			set = append(set, wire.Member{Key: "tools", Value: tools})
		}
		return wire.Native(dst, n.Body, set, o.Extras)
	}
	w := wire.Writer{B: dst}
	w.BeginObject()
	w.StringField("model", req.Model)
	if req.Instructions != "" {
		w.StringField("instructions", req.Instructions)
	}
	w.Key("input")
	w.BeginArray()
	for i := range req.Messages {
		if err := writeResponsesItem(&w, &req.Messages[i]); err != nil {
			return dst, fmt.Errorf("write message %d: %w", i, err)
		}
	}
	w.EndArray()
	if len(req.Tools) > 0 {
		w.Key("tools")
		w.BeginArray()
		for _, t := range req.Tools {
			w.BeginObject()
			w.StringField("type", "function")
			w.StringField("name", t.Name)
			if t.Description != "" {
				w.StringField("description", t.Description)
			}
			w.Key("parameters")
			if err := writeParameters(&w, t.Parameters, o.Quirks.Kimi); err != nil {
				return dst, fmt.Errorf("write tool %q parameters: %w", t.Name, err)
			}
			w.Key("strict")
			w.Bool(false)
			w.EndObject()
		}
		w.EndArray()
	}
	if w.Field(o.Extras, "include") {
		w.BeginArray()
		w.String("reasoning.encrypted_content")
		w.EndArray()
	}
	w.Key("stream")
	w.Bool(true)
	if req.MaxOutputTokens > 0 && w.Field(o.Extras, "max_output_tokens") {
		w.Int(int64(req.MaxOutputTokens))
	}
	if (req.Reasoning.Enabled || req.Reasoning.Effort != "") && w.Field(o.Extras, "reasoning") {
		w.BeginObject()
		if req.Reasoning.Effort != "" {
			w.StringField("effort", req.Reasoning.Effort)
		}
		if req.Reasoning.Effort != "none" { // nothing to summarise
			w.StringField("summary", "auto")
		}
		w.EndObject()
	}
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

func writeResponsesItem(w *wire.Writer, m *llm.Message) error {
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		w.BeginObject()
		w.StringField("type", "message")
		w.StringField("role", m.Role.String())
		w.Key("content")
		writeInputParts(w, m.Parts)
		w.EndObject()
	case llm.RoleAssistant:
		if m.Assistant == nil {
			return fmt.Errorf("assistant message without content")
		}
		return writeResponsesAssistant(w, m.Assistant)
	case llm.RoleTool:
		tr := m.ToolResult
		if tr == nil {
			return fmt.Errorf("tool message without result")
		}
		w.BeginObject()
		w.StringField("type", "function_call_output")
		w.StringField("call_id", tr.CallID)
		w.Key("output")
		if tr.Image == nil {
			w.String(tr.Content)
		} else {
			writeInputParts(w, []llm.Part{{Kind: llm.PartText, Text: tr.Content}, {Kind: llm.PartImage, Image: tr.Image}})
		}
		w.EndObject()
	default:
		return fmt.Errorf("unknown role %d", m.Role)
	}
	return nil
}

func writeInputParts(w *wire.Writer, parts []llm.Part) {
	w.BeginArray()
	for _, p := range parts {
		w.BeginObject()
		switch p.Kind {
		case llm.PartText:
			w.StringField("type", "input_text")
			w.StringField("text", p.Text)
		case llm.PartImage:
			w.StringField("type", "input_image")
			w.StringField("detail", "auto")
			w.Key("image_url")
			w.DataURL(p.Image.MIMEType, p.Image.Data)
		}
		w.EndObject()
	}
	w.EndArray()
}

// writeResponsesAssistant writes the replayed reasoning items (only when the
// turn came from Responses), then the text, then one function_call per call.
func writeResponsesAssistant(w *wire.Writer, a *llm.Assistant) error {
	if a.Replay != nil && a.Replay.Kind == llm.ProviderOpenAIResponses {
		var v struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(a.Replay.Value, &v); err != nil {
			return fmt.Errorf("read responses replay state: %w", err)
		}
		for _, item := range v.Items {
			if err := writeReasoningItem(w, item); err != nil {
				return err
			}
		}
	}
	if a.Text != "" {
		w.BeginObject()
		w.StringField("type", "message")
		w.StringField("role", "assistant")
		w.Key("content")
		w.BeginArray()
		w.BeginObject()
		w.StringField("type", "output_text")
		w.StringField("text", a.Text)
		w.EndObject()
		w.EndArray()
		w.EndObject()
	}
	for _, c := range a.Calls {
		w.BeginObject()
		w.StringField("type", "function_call")
		w.StringField("call_id", c.CallID)
		w.StringField("name", c.Name)
		w.StringField("arguments", string(arguments(c.Arguments)))
		w.EndObject()
	}
	return nil
}

// reasoningItem is the projection of a reasoning output item that is valid
// as an input item: other fields (status, ...) are rejected on input.
type reasoningItem struct {
	ID               string          `json:"id"`
	Summary          json.RawMessage `json:"summary"`
	Content          json.RawMessage `json:"content"`
	EncryptedContent json.RawMessage `json:"encrypted_content"`
}

// writeReasoningItem writes exactly type, id, summary, content and
// encrypted_content of a stored reasoning item.
func writeReasoningItem(w *wire.Writer, raw []byte) error {
	var it reasoningItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return fmt.Errorf("read reasoning item: %w", err)
	}
	w.BeginObject()
	w.StringField("type", "reasoning")
	w.StringField("id", it.ID)
	w.Key("summary")
	if len(it.Summary) == 0 || string(it.Summary) == "null" {
		w.BeginArray()
		w.EndArray()
	} else if err := w.Raw(it.Summary); err != nil {
		return err
	}
	for _, f := range [...]struct {
		key string
		raw json.RawMessage
	}{{"content", it.Content}, {"encrypted_content", it.EncryptedContent}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		w.Key(f.key)
		if err := w.Raw(f.raw); err != nil {
			return err
		}
	}
	w.EndObject()
	return nil
}
