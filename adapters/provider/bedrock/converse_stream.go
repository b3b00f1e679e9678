package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// converseEvent names the fields Keygate reads from the payload of one
// ConverseStream event (the event's type is its :event-type header).
type converseEvent struct {
	ContentBlockIndex int `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *struct {
			Text      *string `json:"text"`
			Signature string  `json:"signature"`
		} `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string `json:"stopReason"`
	Usage      *struct {
		InputTokens           *int64 `json:"inputTokens"`
		OutputTokens          *int64 `json:"outputTokens"`
		CacheReadInputTokens  *int64 `json:"cacheReadInputTokens"`
		CacheWriteInputTokens *int64 `json:"cacheWriteInputTokens"`
	} `json:"usage"`
	Message string `json:"message"`
}

type blockKind uint8

const (
	blockText blockKind = iota + 1
	blockThinking
	blockTool
)

type openBlock struct {
	kind blockKind
	call int // the tool call's index among the response's calls
}

// ConverseDecoder turns a ConverseStream event stream into model events:
// text and reasoning blocks open with their first delta (Converse sends
// contentBlockStart only for tool use), a tool call's input arrives as JSON
// fragments, the reasoning blocks with their signatures become replay state,
// messageStop gives the finish and metadata the usage; Done follows
// metadata, the stream's last event. Use one per call.
type ConverseDecoder struct {
	started bool
	open    map[int]*openBlock
	calls   int
	reason  []reasoningBlock
	cur     *reasoningBlock
	stop    string
	stopped bool
	ended   bool
}

// Meta implements protocol.Decoder: Converse's stream carries neither a
// response id nor the model.
func (d *ConverseDecoder) Meta() (id, model string) { return "", "" }

// Ended implements protocol.Decoder.
func (d *ConverseDecoder) Ended() bool { return d.ended }

// Decode implements protocol.Decoder.
func (d *ConverseDecoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	name := string(ev.Name)
	if err := exception(label, name, ev.Data); err != nil {
		return out, err
	}
	var e converseEvent
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		return out, failure.Protocol(label, "stream JSON error", err)
	}
	if !d.started {
		d.started = true
		d.open = map[int]*openBlock{}
		out = append(out, llm.Event{Kind: llm.EventStart})
	}
	switch name {
	case "contentBlockStart":
		if e.Start != nil && e.Start.ToolUse != nil {
			out = d.openTool(out, e.ContentBlockIndex, e.Start.ToolUse.ToolUseID, e.Start.ToolUse.Name)
		}
	case "contentBlockDelta":
		if e.Delta == nil {
			return out, nil
		}
		switch {
		case e.Delta.Text != nil:
			b := d.open[e.ContentBlockIndex]
			if b == nil {
				b = &openBlock{kind: blockText}
				d.open[e.ContentBlockIndex] = b
				out = append(out, llm.Event{Kind: llm.EventTextStart})
			}
			if *e.Delta.Text != "" {
				out = append(out, llm.Event{Kind: llm.EventTextDelta, Text: *e.Delta.Text})
			}
		case e.Delta.ReasoningContent != nil:
			b := d.open[e.ContentBlockIndex]
			if b == nil {
				d.open[e.ContentBlockIndex] = &openBlock{kind: blockThinking}
				d.reason = append(d.reason, reasoningBlock{})
				d.cur = &d.reason[len(d.reason)-1]
				out = append(out, llm.Event{Kind: llm.EventThinkingStart})
			}
			rc := e.Delta.ReasoningContent
			if rc.Text != nil && *rc.Text != "" {
				d.cur.Text += *rc.Text
				out = append(out, llm.Event{Kind: llm.EventThinkingDelta, Text: *rc.Text})
			}
			if rc.Signature != "" {
				d.cur.Signature += rc.Signature
			}
		case e.Delta.ToolUse != nil:
			b := d.open[e.ContentBlockIndex]
			if b == nil || b.kind != blockTool {
				return out, failure.Protocol(label, "tool input for a block that is not a tool call", nil)
			}
			if e.Delta.ToolUse.Input != "" {
				out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: b.call, Text: e.Delta.ToolUse.Input})
			}
		}
	case "contentBlockStop":
		out = d.close(out, e.ContentBlockIndex)
	case "messageStop":
		out = d.closeAll(out)
		d.stop, d.stopped = e.StopReason, true
	case "metadata":
		out = d.closeAll(out)
		if e.Usage != nil {
			u := llm.ExclusiveUsage(llm.UsageCounts{Input: e.Usage.InputTokens, Output: e.Usage.OutputTokens,
				CacheRead: e.Usage.CacheReadInputTokens, CacheWrite: e.Usage.CacheWriteInputTokens})
			out = append(out, llm.Event{Kind: llm.EventUsage, Usage: &u})
		}
		return d.done(out)
	}
	return out, nil
}

func (d *ConverseDecoder) openTool(out []llm.Event, index int, id, name string) []llm.Event {
	b := &openBlock{kind: blockTool, call: d.calls}
	d.calls++
	d.open[index] = b
	return append(out, llm.Event{Kind: llm.EventToolCallStart, Index: b.call, CallID: id, Name: name})
}

func (d *ConverseDecoder) close(out []llm.Event, index int) []llm.Event {
	b := d.open[index]
	if b == nil {
		return out
	}
	delete(d.open, index)
	switch b.kind {
	case blockText:
		return append(out, llm.Event{Kind: llm.EventTextEnd})
	case blockThinking:
		sig := ""
		if d.cur != nil {
			sig = d.cur.Signature
		}
		d.cur = nil
		return append(out, llm.Event{Kind: llm.EventThinkingEnd, Text: sig})
	default:
		return append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: b.call})
	}
}

func (d *ConverseDecoder) closeAll(out []llm.Event) []llm.Event {
	for index := range d.open {
		out = d.close(out, index)
	}
	return out
}

// done ends the stream: the reasoning as replay state, then Done with the
// finish messageStop gave.
func (d *ConverseDecoder) done(out []llm.Event) ([]llm.Event, error) {
	d.ended = true
	if !d.stopped {
		return out, failure.Transient(label, "stream ended without messageStop", nil)
	}
	if len(d.reason) > 0 {
		v, _ := json.Marshal(replayState{Reasoning: d.reason}) // strings only
		out = append(out, llm.Event{Kind: llm.EventReplayState, Replay: &llm.ReplayState{Kind: llm.ProviderBedrockConverse, Value: v}})
	}
	switch d.stop {
	case "end_turn", "stop_sequence", "":
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishStop}), nil
	case "tool_use":
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishToolUse}), nil
	case "max_tokens":
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishLength}), nil
	case "guardrail_intervened", "content_filtered":
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishContentFilter}), nil
	case "model_context_window_exceeded":
		return out, failure.InBand(label, "context_length_exceeded", "the conversation exceeds the model's context window")
	}
	return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishStop}), nil
}

// End implements protocol.Decoder: metadata may be missing after
// messageStop (a proxy that drops it); the stream then ends without usage.
func (d *ConverseDecoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	if !d.stopped {
		d.ended = true
		return out, failure.Transient(label, "stream ended before messageStop", nil)
	}
	return d.done(d.closeAll(out))
}

// exception is the error an exception or error message of the stream
// carries, nil for an event.
func exception(lbl, name string, data []byte) error {
	typ, ok := strings.CutPrefix(name, "exception/")
	if !ok {
		code, isErr := strings.CutPrefix(name, "error/")
		if !isErr {
			return nil
		}
		return failure.InBand(lbl, inBandCode(code), string(data))
	}
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(data, &e) // a body without a message still names its type
	return failure.InBand(lbl, inBandCode(typ), e.Message)
}

// inBandCode maps Bedrock's exception types onto the codes failure.InBand
// classifies.
func inBandCode(typ string) string {
	switch strings.ToLower(strings.TrimSuffix(typ, "Exception")) {
	case "throttling", "servicequotaexceeded":
		return "rate_limit_error"
	case "validation":
		return "invalid_request_error"
	case "accessdenied", "unrecognizedclient", "expiredtoken":
		return "permission_error"
	case "internalserver", "modelstreamerror", "serviceunavailable", "modelnotready", "modeltimeout":
		return "server_error"
	}
	return typ
}

// AnthropicDecoder reads InvokeModelWithResponseStream: each chunk event's
// bytes are one Anthropic Messages stream event (base64 in JSON), handed to
// adapters/provider/anthropic's decoder. Use one per call.
type AnthropicDecoder struct {
	inner anthropic.Decoder
}

// Meta implements protocol.Decoder.
func (d *AnthropicDecoder) Meta() (id, model string) { return d.inner.Meta() }

// Ended implements protocol.Decoder.
func (d *AnthropicDecoder) Ended() bool { return d.inner.Ended() }

// Decode implements protocol.Decoder.
func (d *AnthropicDecoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	if err := exception(anthropicLabel, string(ev.Name), ev.Data); err != nil {
		return out, err
	}
	if string(ev.Name) != "chunk" {
		return out, nil
	}
	var c struct {
		Bytes string `json:"bytes"`
	}
	if err := json.Unmarshal(ev.Data, &c); err != nil {
		return out, failure.Protocol(anthropicLabel, "chunk JSON error", err)
	}
	raw, err := base64.StdEncoding.DecodeString(c.Bytes)
	if err != nil {
		return out, failure.Protocol(anthropicLabel, "chunk bytes are not base64", err)
	}
	return d.inner.Decode(sse.Event{Data: raw}, out)
}

// End implements protocol.Decoder.
func (d *AnthropicDecoder) End(out []llm.Event) ([]llm.Event, error) { return d.inner.End(out) }
