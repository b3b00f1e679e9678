package gemini

import (
	"fmt"
	"slices"
	"strings"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// SkipSignature is the value Google documents for a functionCall part that
// has no thought signature of its own (a turn another protocol or model
// produced): Gemini 3 refuses a function call of the current turn without a
// signature, and accepts this one in its place.
const SkipSignature = "skip_thought_signature_validator"

// part is one part of a content, kept as a reference to where it came from
// so the body is written in one pass.
type part struct {
	text      *string
	image     *llm.Image
	call      *llm.ToolCall
	result    *llm.ToolResult
	name      string // a result's function name
	signature string
}

type content struct {
	role  string // user or model
	parts []part
}

// AppendRequest appends the streamGenerateContent body of req to dst.
//
// Field order: systemInstruction, tools, generationConfig, contents, then
// configured extras; contents come last so that a conversation extended by
// a turn gives a body whose bytes up to its last content extend the
// previous body's. Roles are user and model; system and tool messages are
// user turns, and consecutive messages of one role are merged into one
// content.
//
// Function calls carry no ids: Gemini pairs a functionResponse with its
// functionCall by position and name. Keygate's call ids (minted by the
// decoder) are never sent; the responses of a tool round are written in
// the order of the calls of the model turn before them, each under the
// call's name, whatever order the results came in, and a result whose call
// is not in that turn follows in its own order.
func AppendRequest(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
	if err := protocol.RefuseFillIn(label, req); err != nil {
		return dst, err
	}
	contents, err := group(req.Messages, needsSignature(req.Model))
	if err != nil {
		return dst, err
	}
	w := wire.Writer{B: dst}
	w.BeginObject()
	if req.Instructions != "" {
		w.Key("systemInstruction")
		w.BeginObject()
		w.Key("parts")
		w.BeginArray()
		w.BeginObject()
		w.StringField("text", req.Instructions)
		w.EndObject()
		w.EndArray()
		w.EndObject()
	}
	if len(req.Tools) > 0 {
		w.Key("tools")
		w.BeginArray()
		w.BeginObject()
		w.Key("functionDeclarations")
		w.BeginArray()
		for _, t := range req.Tools {
			w.BeginObject()
			w.StringField("name", t.Name)
			if t.Description != "" {
				w.StringField("description", t.Description)
			}
			if hasProperties(t.Parameters) {
				w.Key("parameters")
				if err := appendSchema(&w, t.Parameters); err != nil {
					return dst, fmt.Errorf("write tool %q: %w", t.Name, err)
				}
			}
			w.EndObject()
		}
		w.EndArray()
		w.EndObject()
		w.EndArray()
	}
	if (req.MaxOutputTokens > 0 || req.Reasoning.Enabled) && w.Field(o.Extras, "generationConfig") {
		w.BeginObject()
		if req.MaxOutputTokens > 0 {
			w.Key("maxOutputTokens")
			w.Int(int64(req.MaxOutputTokens))
		}
		if req.Reasoning.Enabled {
			writeThinking(&w, req.Model, req.Reasoning.Effort)
		}
		w.EndObject()
	}
	w.Key("contents")
	w.BeginArray()
	for i := range contents {
		if err := writeContent(&w, &contents[i]); err != nil {
			return dst, err
		}
	}
	w.EndArray()
	w.Rest(o.Extras)
	w.EndObject()
	return w.B, nil
}

// writeThinking writes thinkingConfig: thought summaries on, and the
// effort as Gemini 3's thinkingLevel or Gemini 2.5's thinkingBudget
// (tokens). No effort leaves the model's default: Gemini 3's dynamic high,
// Gemini 2.5's dynamic budget (-1).
func writeThinking(w *wire.Writer, model, effort string) {
	w.Key("thinkingConfig")
	w.BeginObject()
	w.Key("includeThoughts")
	w.Bool(true)
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "gemini-3"):
		if effort != "" {
			w.StringField("thinkingLevel", thinkingLevel(effort, strings.Contains(m, "flash")))
		}
	default:
		w.Key("thinkingBudget")
		w.Int(thinkingBudget(effort))
	}
	w.EndObject()
}

// thinkingLevel maps an effort onto Gemini 3's levels: Pro takes low and
// high, Flash also minimal and medium.
func thinkingLevel(effort string, flash bool) string {
	switch effort {
	case "minimal", "none":
		if flash {
			return "minimal"
		}
		return "low"
	case "low":
		return "low"
	case "medium":
		if flash {
			return "medium"
		}
		return "high"
	}
	return "high"
}

// thinkingBudget maps an effort onto a Gemini 2.5 budget within what both
// Pro (128 to 32768) and Flash (0 to 24576) accept; no effort is dynamic.
func thinkingBudget(effort string) int64 {
	switch effort {
	case "":
		return -1
	case "minimal", "none", "low":
		return 1024
	case "medium":
		return 8192
	}
	return 24576
}

// needsSignature reports whether the model refuses a function call without
// a thought signature (Gemini 3's strict validation).
func needsSignature(model string) bool {
	return strings.Contains(strings.ToLower(model), "gemini-3")
}

// group merges the history into contents of alternating roles.
func group(msgs []llm.Message, strict bool) ([]content, error) {
	var out []content
	add := func(role string, p part) {
		if n := len(out); n > 0 && out[n-1].role == role {
			out[n-1].parts = append(out[n-1].parts, p)
			return
		}
		out = append(out, content{role: role, parts: []part{p}})
	}
	var lastCalls []llm.ToolCall
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
			for pi := range m.Parts {
				p := &m.Parts[pi]
				if p.Kind == llm.PartImage && p.Image != nil {
					add("user", part{image: p.Image})
				} else {
					add("user", part{text: &p.Text})
				}
			}
		case llm.RoleTool:
			j := i
			for j < len(msgs) && msgs[j].Role == llm.RoleTool {
				if msgs[j].ToolResult == nil {
					return nil, fmt.Errorf("group message %d: tool message without result", j)
				}
				j++
			}
			for _, p := range results(msgs[i:j], lastCalls) {
				add("user", p)
			}
			i = j - 1
		case llm.RoleAssistant:
			a := m.Assistant
			if a == nil {
				return nil, fmt.Errorf("group message %d: assistant message without content", i)
			}
			sigs, err := readSignatures(a.Replay)
			if err != nil {
				return nil, fmt.Errorf("group message %d: %w", i, err)
			}
			if a.Text != "" || sigs.text() != "" {
				add("model", part{text: &a.Text, signature: sigs.text()})
			}
			for ci := range a.Calls {
				c := &a.Calls[ci]
				sig := sigs.call(c.Index)
				if sig == "" && ci == 0 && strict {
					sig = SkipSignature
				}
				add("model", part{call: c, signature: sig})
			}
			lastCalls = a.Calls
		default:
			return nil, fmt.Errorf("group message %d: unknown role %d", i, m.Role)
		}
	}
	return out, nil
}

// results orders a tool round's results by the calls they answer, then
// adds the images they returned, in the same order.
func results(run []llm.Message, calls []llm.ToolCall) []part {
	pos := func(r *llm.ToolResult) int {
		for i := range calls {
			if calls[i].CallID == r.CallID {
				return i
			}
		}
		return len(calls)
	}
	sorted := make([]*llm.ToolResult, len(run))
	for i := range run {
		sorted[i] = run[i].ToolResult
	}
	slices.SortStableFunc(sorted, func(a, b *llm.ToolResult) int { return pos(a) - pos(b) })
	var parts, images []part
	for _, r := range sorted {
		name := r.Name
		if p := pos(r); p < len(calls) {
			name = calls[p].Name
		}
		parts = append(parts, part{result: r, name: name})
		if r.Image != nil {
			images = append(images, part{image: r.Image})
		}
	}
	return append(parts, images...)
}

func writeContent(w *wire.Writer, c *content) error {
	w.BeginObject()
	w.StringField("role", c.role)
	w.Key("parts")
	w.BeginArray()
	for i := range c.parts {
		p := &c.parts[i]
		w.BeginObject()
		switch {
		case p.text != nil:
			w.StringField("text", *p.text)
		case p.image != nil:
			w.Key("inlineData")
			w.BeginObject()
			w.StringField("mimeType", p.image.MIMEType)
			w.Key("data")
			w.Base64(p.image.Data)
			w.EndObject()
		case p.call != nil:
			w.Key("functionCall")
			w.BeginObject()
			w.StringField("name", p.call.Name)
			w.Key("args")
			if err := w.Raw(args(p.call.Arguments)); err != nil {
				return fmt.Errorf("write call %q: %w", p.call.Name, err)
			}
			w.EndObject()
		case p.result != nil:
			w.Key("functionResponse")
			w.BeginObject()
			w.StringField("name", p.name)
			w.Key("response")
			w.BeginObject()
			if p.result.IsError {
				w.StringField("error", p.result.Content)
			} else {
				w.StringField("output", p.result.Content)
			}
			w.EndObject()
			w.EndObject()
		}
		if p.signature != "" {
			w.StringField("thoughtSignature", p.signature)
		}
		w.EndObject()
	}
	w.EndArray()
	w.EndObject()
	return nil
}

// args returns arguments as a compact JSON object; "{}" when missing or not
// an object.
func args(raw []byte) []byte {
	if wire.IsObject(raw) {
		if c, err := wire.Compact(raw); err == nil {
			return c
		}
	}
	return []byte("{}")
}
