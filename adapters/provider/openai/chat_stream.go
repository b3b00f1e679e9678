package openai

import (
	"bytes"
	"encoding/json"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// chatChunk names only the fields Keygate reads from a Chat chunk.
type chatChunk struct {
	ID      string       `json:"id"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	Error   *apiError    `json:"error"`
	// Azure's content filter annotates the prompt in a chunk of its own,
	// under either name depending on the API version.
	PromptFilter      []promptFilter `json:"prompt_filter_results"`
	PromptAnnotations []promptFilter `json:"prompt_annotations"`
}

// promptFilter is one entry of prompt_filter_results.
type promptFilter struct {
	Filter failure.FilterResults `json:"content_filter_results"`
}

type chatChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	FinishReason string    `json:"finish_reason"`
	// Filter is Azure's content filter verdict on the answer so far.
	Filter failure.FilterResults `json:"content_filter_results"`
}

type chatDelta struct {
	Content          string          `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []chatToolDelta `json:"tool_calls"`
}

type chatToolDelta struct {
	Index *int   `json:"index"`
	ID    string `json:"id"`
	// ExtraContent is Gemini's extension (a Gemini 3 thought signature),
	// kept for replay.
	ExtraContent json.RawMessage `json:"extra_content"`
	Function     struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// apiError is an error object as OpenAI and compatible servers send it; code
// is a string at OpenAI and a number at OpenRouter.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil && s != "" {
		return s
	}
	if e.Type != "" {
		return e.Type
	}
	return string(bytes.Trim(e.Code, `"`))
}

type chatCall struct {
	index   int
	id      string
	name    string
	extra   json.RawMessage // extra_content, replayed on the call
	args    []byte          // buffered until the call starts
	started bool
}

// ChatDecoder turns a Chat Completions stream into model events. Use one per
// call.
type ChatDecoder struct {
	started      bool
	id, model    string
	filter       []llm.FilterHit
	thinkingOpen bool
	textOpen     bool
	reasoning    []byte
	sawReasoning bool
	calls        []chatCall
	finish       string
	sawDone      bool
	usage        *llm.Usage
	ended        bool
}

// Meta returns the response id and model the stream reported.
func (d *ChatDecoder) Meta() (id, model string) { return d.id, d.model }

// Ended reports whether the stream reached its terminal event.
func (d *ChatDecoder) Ended() bool { return d.ended }

// Decode handles one SSE event and appends the resulting events to out.
func (d *ChatDecoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	data := bytes.TrimSpace(ev.Data)
	if string(data) == "[DONE]" {
		d.sawDone = true
		return d.End(out)
	}
	if out, ok := d.fastChunk(data, out); ok {
		return out, nil
	}
	var c chatChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return out, failure.Protocol(chatLabel, "stream JSON error", err)
	}
	if c.Error != nil {
		return out, failure.InBand(chatLabel, c.Error.code(), c.Error.Message)
	}
	for _, pf := range append(c.PromptFilter, c.PromptAnnotations...) {
		d.filter = pf.Filter.Hits(d.filter)
	}
	// Azure's first chunk carries only the prompt's filter annotations, with
	// an empty id and model: the response's id and model are those of the
	// first chunk that carries them, and an annotation alone starts nothing.
	if d.id == "" {
		d.id = c.ID
	}
	if d.model == "" {
		d.model = c.Model
	}
	if !d.started && c.ID == "" && len(c.Choices) == 0 && c.Usage == nil {
		return out, nil
	}
	if !d.started {
		d.started = true
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	if c.Usage != nil {
		d.usage = chatToUsage(c.Usage)
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		var err error
		if out, err = d.choice(ch, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (d *ChatDecoder) choice(ch *chatChoice, out []llm.Event) ([]llm.Event, error) {
	reasoning := ch.Delta.ReasoningContent
	if reasoning == "" {
		reasoning = ch.Delta.Reasoning
	}
	if reasoning != "" {
		if !d.thinkingOpen {
			d.thinkingOpen = true
			out = append(out, llm.Event{Kind: llm.EventThinkingStart})
		}
		d.sawReasoning = true
		d.reasoning = append(d.reasoning, reasoning...)
		out = append(out, llm.Event{Kind: llm.EventThinkingDelta, Text: reasoning})
	}
	// A refusal is shown to the user like text: the event vocabulary has no
	// separate channel for it and Chat ends it with an ordinary stop.
	for _, text := range [2]string{ch.Delta.Content, ch.Delta.Refusal} {
		if text == "" {
			continue
		}
		out = d.closeThinking(out)
		if !d.textOpen {
			d.textOpen = true
			out = append(out, llm.Event{Kind: llm.EventTextStart})
		}
		out = append(out, llm.Event{Kind: llm.EventTextDelta, Text: text})
	}
	for pos := range ch.Delta.ToolCalls {
		out = d.toolDelta(&ch.Delta.ToolCalls[pos], pos, out)
	}
	d.filter = ch.Filter.Hits(d.filter)
	if ch.FinishReason != "" {
		d.finish = ch.FinishReason
	}
	return out, nil
}

func (d *ChatDecoder) closeThinking(out []llm.Event) []llm.Event {
	if d.thinkingOpen {
		d.thinkingOpen = false
		out = append(out, llm.Event{Kind: llm.EventThinkingEnd})
	}
	return out
}

func (d *ChatDecoder) toolDelta(td *chatToolDelta, pos int, out []llm.Event) []llm.Event {
	c := d.callFor(td, pos)
	c.id = mergeFragment(c.id, td.ID)
	c.name = mergeFragment(c.name, td.Function.Name)
	if len(td.ExtraContent) > 0 && string(td.ExtraContent) != "null" {
		c.extra = td.ExtraContent
	}
	args := td.Function.Arguments
	if c.started {
		if args != "" {
			out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: c.index, Text: args})
		}
		return out
	}
	c.args = append(c.args, args...)
	if c.id != "" && c.name != "" {
		out = d.startCall(c, out)
	}
	return out
}

// callFor finds the call a fragment belongs to, adding it when new. With an
// index the index decides. Without one (Gemini's OpenAI-compatible endpoint
// sends none, one whole call per chunk) the id decides: a new id is a new
// call, and a fragment with neither index nor id continues the last call.
func (d *ChatDecoder) callFor(td *chatToolDelta, pos int) *chatCall {
	match := func(c *chatCall) bool { return c.index == pos }
	switch {
	case td.Index != nil:
		pos = *td.Index
	case td.ID != "":
		pos = len(d.calls)
		match = func(c *chatCall) bool { return c.id == td.ID }
	case len(d.calls) > 0:
		return &d.calls[len(d.calls)-1]
	}
	for i := range d.calls {
		if match(&d.calls[i]) {
			return &d.calls[i]
		}
	}
	d.calls = append(d.calls, chatCall{index: pos})
	return &d.calls[len(d.calls)-1]
}

func (d *ChatDecoder) startCall(c *chatCall, out []llm.Event) []llm.Event {
	out = d.closeThinking(out)
	c.started = true
	out = append(out, llm.Event{Kind: llm.EventToolCallStart, Index: c.index, CallID: c.id, Name: c.name})
	if len(c.args) > 0 {
		out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: c.index, Text: string(c.args)})
		c.args = nil
	}
	return out
}

// mergeFragment merges an id or name fragment defensively: some compatible
// servers resend the whole value on every chunk. A fragment equal to or a
// suffix of what we have is ignored, one that extends it replaces it, anything
// else is appended.
func mergeFragment(have, frag string) string {
	switch {
	case frag == "":
		return have
	case len(frag) <= len(have) && have[len(have)-len(frag):] == frag:
		return have
	case len(frag) > len(have) && frag[:len(have)] == have:
		return frag
	default:
		return have + frag
	}
}
