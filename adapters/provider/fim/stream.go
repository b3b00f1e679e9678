package fim

import (
	"bytes"
	"encoding/json"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// chunk names only the fields Keygate reads from a streamed chunk of
// either protocol.
type chunk struct {
	ID      string    `json:"id"`
	Model   string    `json:"model"`
	Object  string    `json:"object"`
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   *apiError `json:"error"`
	// Message is set when the chunk is itself an error object
	// ({"object":"error","message":…}, vLLM's form).
	Message string `json:"message"`
}

type choice struct {
	Index int `json:"index"`
	// Text is a completions chunk's text.
	Text string `json:"text"`
	// Delta is a Mistral (chat-completion) chunk's.
	Delta struct {
		Content string `json:"content"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// usage is the completions usage block. Counts are inclusive, as at
// OpenAI: the input includes the cached tokens, reported by vLLM under
// prompt_tokens_details and by DeepSeek as prompt_cache_hit_tokens.
type usage struct {
	PromptTokens        *int64 `json:"prompt_tokens"`
	CompletionTokens    *int64 `json:"completion_tokens"`
	PromptCacheHit      *int64 `json:"prompt_cache_hit_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *usage) toLLM() *llm.Usage {
	c := llm.UsageCounts{Input: u.PromptTokens, Output: u.CompletionTokens, CacheRead: u.PromptCacheHit}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
		c.CacheRead = u.PromptTokensDetails.CachedTokens
	}
	n := llm.InclusiveUsage(c)
	return &n
}

// apiError is an error object inside a 200 stream; code is a string at
// OpenAI and a number at some compatible servers.
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
	return e.Type
}

// Decoder turns a fill-in-the-middle stream into model events: Start, one
// text block, Usage when the server reported it, Done. Use one per call.
type Decoder struct {
	label     string
	started   bool
	id, model string
	textOpen  bool
	finish    string
	sawDone   bool
	usage     *llm.Usage
	ended     bool
}

// Meta returns the response id and model the stream reported.
func (d *Decoder) Meta() (id, model string) { return d.id, d.model }

// Ended reports whether the stream reached its terminal event.
func (d *Decoder) Ended() bool { return d.ended }

// Decode handles one SSE event and appends the resulting events to out.
// Usage may arrive on a chunk of its own with no choices (OpenAI's
// include_usage), on the chunk that carries finish_reason (Mistral, some
// compatible servers) or not at all; the last block seen is reported.
func (d *Decoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return out, nil
	}
	if string(data) == "[DONE]" {
		d.sawDone = true
		return d.End(out)
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return out, failure.Protocol(d.label, "stream JSON error", err)
	}
	if c.Error != nil {
		return out, failure.InBand(d.label, c.Error.code(), c.Error.Message)
	}
	if c.Object == "error" {
		return out, failure.InBand(d.label, "", c.Message)
	}
	if d.id == "" {
		d.id = c.ID
	}
	if d.model == "" {
		d.model = c.Model
	}
	if !d.started {
		d.started = true
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	if c.Usage != nil {
		d.usage = c.Usage.toLLM()
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only one completion is asked for
		}
		if text := ch.Text + ch.Delta.Content; text != "" {
			if !d.textOpen {
				d.textOpen = true
				out = append(out, llm.Event{Kind: llm.EventTextStart})
			}
			out = append(out, llm.Event{Kind: llm.EventTextDelta, Text: text})
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	if d.finish == "error" {
		// Mistral's finish reason for a generation that failed upstream.
		return out, failure.InBand(d.label, "", "the model stopped with an error")
	}
	return out, nil
}

// End finishes the stream at [DONE] or EOF: it closes the text block,
// reports usage and emits Done. A stream cut before any finish_reason and
// without [DONE] is a protocol error, as for Chat.
func (d *Decoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	d.ended = true
	if !d.started {
		return out, failure.Protocol(d.label, "stream ended without any chunk", nil)
	}
	if d.textOpen {
		d.textOpen = false
		out = append(out, llm.Event{Kind: llm.EventTextEnd})
	}
	if d.usage != nil {
		out = append(out, llm.Event{Kind: llm.EventUsage, Usage: d.usage})
	}
	if d.finish == "" && !d.sawDone {
		return out, failure.Protocol(d.label, "stream ended without finish_reason", nil)
	}
	return append(out, llm.Event{Kind: llm.EventDone, Finish: collapse(d.finish)}), nil
}

// collapse maps finish_reason: Mistral's model_length (the model's context
// is full) is a truncation like length; anything else, or none before
// [DONE], is an ordinary stop.
func collapse(finish string) llm.FinishReason {
	switch finish {
	case "length", "model_length":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishStop
}
