package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

const label = "Anthropic"

// DefaultMaxTokens is sent when neither the request nor the model names a
// cap: Anthropic requires max_tokens.
const DefaultMaxTokens = 65000

// Options are the per-call settings of a request body.
type Options struct {
	// Extras are the configured extra parameters; nil means none.
	Extras *wire.Extras
	// ThinkingCarrier gives every assistant turn a thinking block when
	// thinking is on: DeepSeek's Anthropic-format gateway rejects turns
	// without one. A turn without its own reuses the nearest earlier signed
	// block, else gets an empty one.
	ThinkingCarrier bool
}

// block is one content block of a merged message, kept as a reference to
// where it came from so it can be written in one pass.
type block struct {
	kind   blockKind
	part   *llm.Part
	result *llm.ToolResult
	raw    []byte // replayed thinking block
	text   string
	call   *llm.ToolCall
}

type blockKind uint8

const (
	blockText blockKind = iota + 1
	blockImage
	blockToolResult
	blockReplay
	blockToolUse
)

type turn struct {
	role   string
	blocks []block
}

// AppendRequest appends the Messages body of req to dst.
//
// Field order: model, max_tokens, system, messages, tools, thinking,
// output_config, speed, stream, extras. The fast tier is fast mode
// (speed "fast", with the beta header Messages' Headers adds). Cache
// breakpoints (at most four, Anthropic's limit) sit on the system block, the
// last tool, the last of the tools every mode shares (req.SharedTools; a
// mode switch then finds them cached, since Anthropic writes cache entries
// only at breakpoints) and the last text/image/tool_result block of the
// last user message. Consecutive messages of one role are merged (system and tool
// messages are user turns).
func AppendRequest(dst []byte, req llm.Request, o Options) ([]byte, error) {
	if err := protocol.RefuseFillIn(label, req); err != nil {
		return dst, err
	}
	if n := req.Native; n != nil && n.Kind == llm.ProviderAnthropic {
		return wire.Native(dst, n.Body, []wire.Member{
			{Key: "model", Value: wire.AppendString(nil, req.Model)},
			{Key: "stream", Value: []byte("true")},
		}, o.Extras)
	}
	turns, err := group(req.Messages, o.ThinkingCarrier && req.Reasoning.Enabled)
	if err != nil {
		return dst, err
	}
	w := wire.Writer{B: dst}
	w.BeginObject()
	w.StringField("model", req.Model)
	if w.Field(o.Extras, "max_tokens") {
		n := req.MaxOutputTokens
		if n <= 0 {
			n = DefaultMaxTokens
		}
		w.Int(int64(n))
	}
	if req.Instructions != "" {
		w.Key("system")
		w.BeginArray()
		w.BeginObject()
		w.StringField("type", "text")
		w.StringField("text", req.Instructions)
		writeCacheControl(&w)
		w.EndObject()
		w.EndArray()
	}
	w.Key("messages")
	w.BeginArray()
	last := lastUserBlock(turns)
	for ti := range turns {
		t := &turns[ti]
		w.BeginObject()
		w.StringField("role", t.role)
		w.Key("content")
		w.BeginArray()
		for bi := range t.blocks {
			if err := writeBlock(&w, &t.blocks[bi], last == [2]int{ti, bi}); err != nil {
				return dst, fmt.Errorf("write message block: %w", err)
			}
		}
		w.EndArray()
		w.EndObject()
	}
	w.EndArray()
	if len(req.Tools) > 0 {
		w.Key("tools")
		w.BeginArray()
		for i, t := range req.Tools {
			w.BeginObject()
			w.StringField("name", t.Name)
			if t.Description != "" {
				w.StringField("description", t.Description)
			}
			w.Key("input_schema")
			params := t.Parameters
			if len(params) == 0 {
				params = []byte(`{"type":"object","properties":{}}`)
			}
			if err := w.Raw(params); err != nil {
				return dst, fmt.Errorf("write tool %q schema: %w", t.Name, err)
			}
			if i == len(req.Tools)-1 || i == req.SharedTools-1 {
				writeCacheControl(&w)
			}
			w.EndObject()
		}
		w.EndArray()
	}
	if req.Reasoning.Enabled && w.Field(o.Extras, "thinking") {
		w.BeginObject()
		w.StringField("type", "adaptive")
		w.StringField("display", "summarized")
		w.EndObject()
	}
	if req.Reasoning.Effort != "" && w.Field(o.Extras, "output_config") {
		w.BeginObject()
		w.StringField("effort", req.Reasoning.Effort)
		w.EndObject()
	}
	if req.ServiceTier == llm.ServiceTierFast && w.Field(o.Extras, "speed") {
		w.String("fast")
	}
	w.Key("stream")
	w.Bool(true)
	w.Rest(o.Extras)
	w.EndObject()
	return w.B, nil
}

func writeCacheControl(w *wire.Writer) {
	w.Key("cache_control")
	w.BeginObject()
	w.StringField("type", "ephemeral")
	w.EndObject()
}

// group merges the history into alternating turns.
func group(msgs []llm.Message, carrier bool) ([]turn, error) {
	var turns []turn
	carried := []byte(`{"type":"thinking","thinking":"","signature":""}`)
	add := func(role string, b block) {
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].blocks = append(turns[n-1].blocks, b)
			return
		}
		turns = append(turns, turn{role: role, blocks: []block{b}})
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
			for pi := range m.Parts {
				p := &m.Parts[pi]
				kind := blockText
				if p.Kind == llm.PartImage {
					kind = blockImage
				}
				add("user", block{kind: kind, part: p})
			}
		case llm.RoleTool:
			if m.ToolResult == nil {
				return nil, fmt.Errorf("group message %d: tool message without result", i)
			}
			add("user", block{kind: blockToolResult, result: m.ToolResult})
		case llm.RoleAssistant:
			a := m.Assistant
			if a == nil {
				return nil, fmt.Errorf("group message %d: assistant message without content", i)
			}
			replay, err := replayBlocks(a.Replay)
			if err != nil {
				return nil, fmt.Errorf("group message %d: %w", i, err)
			}
			for _, r := range replay {
				add("assistant", block{kind: blockReplay, raw: r})
				if bytes.Contains(r, []byte(`"type":"thinking"`)) {
					carried = r
				}
			}
			if carrier && len(replay) == 0 {
				add("assistant", block{kind: blockReplay, raw: carried})
			}
			if a.Text != "" {
				add("assistant", block{kind: blockText, text: a.Text})
			}
			for ci := range a.Calls {
				add("assistant", block{kind: blockToolUse, call: &a.Calls[ci]})
			}
		default:
			return nil, fmt.Errorf("group message %d: unknown role %d", i, m.Role)
		}
	}
	return turns, nil
}

// replayBlocks returns the stored thinking blocks of an Anthropic turn; a turn
// from another protocol replays nothing.
func replayBlocks(r *llm.ReplayState) ([]json.RawMessage, error) {
	if r == nil || r.Kind != llm.ProviderAnthropic {
		return nil, nil
	}
	var v struct {
		Blocks []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return nil, fmt.Errorf("read anthropic replay state: %w", err)
	}
	return v.Blocks, nil
}

// lastUserBlock locates the cache breakpoint in the last user turn: its last
// text, image or tool_result block. {-1,-1} when there is none.
func lastUserBlock(turns []turn) [2]int {
	for ti := len(turns) - 1; ti >= 0; ti-- {
		if turns[ti].role != "user" {
			continue
		}
		for bi := len(turns[ti].blocks) - 1; bi >= 0; bi-- {
			switch turns[ti].blocks[bi].kind {
			case blockText, blockImage, blockToolResult:
				return [2]int{ti, bi}
			}
		}
		break
	}
	return [2]int{-1, -1}
}

func writeBlock(w *wire.Writer, b *block, cache bool) error {
	switch b.kind {
	case blockReplay:
		return w.Raw(b.raw)
	case blockText:
		text := b.text
		if b.part != nil {
			text = b.part.Text
		}
		w.BeginObject()
		w.StringField("type", "text")
		w.StringField("text", text)
	case blockImage:
		w.BeginObject()
		writeImageFields(w, b.part.Image)
	case blockToolUse:
		w.BeginObject()
		w.StringField("type", "tool_use")
		w.StringField("id", b.call.CallID)
		w.StringField("name", b.call.Name)
		w.Key("input")
		if err := w.Raw(toolInput(b.call.Arguments)); err != nil {
			return err
		}
	case blockToolResult:
		r := b.result
		w.BeginObject()
		w.StringField("type", "tool_result")
		w.StringField("tool_use_id", r.CallID)
		w.Key("content")
		if r.Image == nil {
			w.String(r.Content)
		} else {
			w.BeginArray()
			if r.Content != "" {
				w.BeginObject()
				w.StringField("type", "text")
				w.StringField("text", r.Content)
				w.EndObject()
			}
			w.BeginObject()
			writeImageFields(w, r.Image)
			w.EndObject()
			w.EndArray()
		}
		if r.IsError {
			w.Key("is_error")
			w.Bool(true)
		}
	}
	if cache {
		writeCacheControl(w)
	}
	w.EndObject()
	return nil
}

func writeImageFields(w *wire.Writer, img *llm.Image) {
	w.StringField("type", "image")
	w.Key("source")
	w.BeginObject()
	w.StringField("type", "base64")
	w.StringField("media_type", img.MIMEType)
	w.Key("data")
	w.Base64(img.Data)
	w.EndObject()
}

// toolInput returns arguments as a compact JSON object; "{}" when missing
// or not an object. Re-sending compact input (not the streamed partial JSON)
// matches what the SDKs send.
func toolInput(args []byte) []byte {
	if wire.IsObject(args) {
		if c, err := wire.Compact(args); err == nil {
			return c
		}
	}
	return []byte("{}")
}
