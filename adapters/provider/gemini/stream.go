package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// chunk names the fields Keygate reads from one streamed
// GenerateContentResponse (or an error object sent in its place).
type chunk struct {
	Candidates []struct {
		Content *struct {
			Parts []chunkPart `json:"parts"`
		} `json:"content"`
		FinishReason  string `json:"finishReason"`
		FinishMessage string `json:"finishMessage"`
		Index         int    `json:"index"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *usageMetadata `json:"usageMetadata"`
	ModelVersion  string         `json:"modelVersion"`
	ResponseID    string         `json:"responseId"`
	Error         *apiError      `json:"error"`
}

// chunkPart is one part of a candidate's content.
type chunkPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// usageMetadata counts inclusively: promptTokenCount includes
// cachedContentTokenCount; candidatesTokenCount excludes
// thoughtsTokenCount, which Keygate counts as part of the output.
type usageMetadata struct {
	PromptTokenCount        *int64 `json:"promptTokenCount"`
	CandidatesTokenCount    *int64 `json:"candidatesTokenCount"`
	ThoughtsTokenCount      *int64 `json:"thoughtsTokenCount"`
	CachedContentTokenCount *int64 `json:"cachedContentTokenCount"`
	TotalTokenCount         *int64 `json:"totalTokenCount"`
}

func (u *usageMetadata) toLLM() *llm.Usage {
	c := llm.UsageCounts{Input: u.PromptTokenCount, CacheRead: u.CachedContentTokenCount, Reasoning: u.ThoughtsTokenCount}
	switch {
	case u.CandidatesTokenCount != nil && u.ThoughtsTokenCount != nil:
		out := *u.CandidatesTokenCount + *u.ThoughtsTokenCount
		c.Output = &out
	case u.CandidatesTokenCount != nil:
		c.Output = u.CandidatesTokenCount
	case u.ThoughtsTokenCount != nil:
		c.Output = u.ThoughtsTokenCount
	}
	n := llm.InclusiveUsage(c)
	return &n
}

// apiError is Google's error object ({"code":429,"message":…,"status":
// "RESOURCE_EXHAUSTED"}), in an error body or inside a 200 stream.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// inBandCode maps a Google status onto the codes failure.InBand classifies.
func (e *apiError) inBandCode() string {
	switch e.Status {
	case "RESOURCE_EXHAUSTED":
		return "rate_limit_error"
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return "permission_error"
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND":
		return "invalid_request_error"
	case "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED":
		return "server_error"
	}
	if e.Status != "" {
		return e.Status
	}
	return strconv.Itoa(e.Code)
}

// Decoder turns a streamGenerateContent SSE stream into model events: a
// thinking block for thought parts, a text block for text, one complete
// tool call per functionCall part (Gemini streams a call whole, never in
// fragments), usage from the last usageMetadata, the thought signatures as
// replay state, and Done. Gemini has no end-of-stream event: the chunk with
// finishReason is the last, and the stream ends at EOF. Use one per call.
type Decoder struct {
	started      bool
	id, model    string
	thinkingOpen bool
	textOpen     bool
	calls        int
	finish       string
	finishMsg    string
	blocked      string
	usage        *llm.Usage
	textSig      string
	callSigs     []signedCall
	ended        bool
}

// Meta returns the response id and model version the stream reported.
func (d *Decoder) Meta() (id, model string) { return d.id, d.model }

// Ended reports whether the stream reached its end.
func (d *Decoder) Ended() bool { return d.ended }

// Decode handles one SSE event and appends the resulting events to out.
func (d *Decoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	data := bytes.TrimSpace(ev.Data)
	if d.ended || len(data) == 0 {
		return out, nil
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return out, failure.Protocol(label, "stream JSON error", err)
	}
	if c.Error != nil {
		return out, failure.InBand(label, c.Error.inBandCode(), c.Error.Message)
	}
	if d.id == "" {
		d.id = c.ResponseID
	}
	if d.model == "" {
		d.model = c.ModelVersion
	}
	if !d.started {
		d.started = true
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	if c.UsageMetadata != nil {
		d.usage = c.UsageMetadata.toLLM() // cumulative: the last one counts
	}
	if c.PromptFeedback != nil && c.PromptFeedback.BlockReason != "" {
		d.blocked = c.PromptFeedback.BlockReason
	}
	for ci := range c.Candidates {
		cand := &c.Candidates[ci]
		if cand.Index != 0 {
			continue // one candidate is asked for
		}
		if cand.Content != nil {
			for pi := range cand.Content.Parts {
				out = d.part(&cand.Content.Parts[pi], out)
			}
		}
		if cand.FinishReason != "" {
			d.finish, d.finishMsg = cand.FinishReason, cand.FinishMessage
		}
	}
	return out, nil
}

// part emits the events of one part: a thought opens or extends the
// thinking block, text the text block (closing thinking), a function call
// closes both and is emitted whole.
func (d *Decoder) part(p *chunkPart, out []llm.Event) []llm.Event {
	switch {
	case p.FunctionCall != nil:
		out = d.closeText(d.closeThinking(out))
		return d.call(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args, p.ThoughtSignature, out)
	case p.Thought:
		if p.Text != nil && *p.Text != "" {
			if !d.thinkingOpen {
				d.thinkingOpen = true
				out = append(out, llm.Event{Kind: llm.EventThinkingStart})
			}
			out = append(out, llm.Event{Kind: llm.EventThinkingDelta, Text: *p.Text})
		}
	case p.Text != nil:
		out = d.closeThinking(out)
		if *p.Text != "" {
			if !d.textOpen {
				d.textOpen = true
				out = append(out, llm.Event{Kind: llm.EventTextStart})
			}
			out = append(out, llm.Event{Kind: llm.EventTextDelta, Text: *p.Text})
		}
		if p.ThoughtSignature != "" {
			d.textSig = p.ThoughtSignature
		}
	}
	return out
}

func (d *Decoder) closeThinking(out []llm.Event) []llm.Event {
	if !d.thinkingOpen {
		return out
	}
	d.thinkingOpen = false
	return append(out, llm.Event{Kind: llm.EventThinkingEnd})
}

func (d *Decoder) closeText(out []llm.Event) []llm.Event {
	if !d.textOpen {
		return out
	}
	d.textOpen = false
	return append(out, llm.Event{Kind: llm.EventTextEnd})
}

// call emits one whole function call. Gemini sends no call id (or, at some
// endpoints, one of its own, which is kept): Keygate's is minted from the
// response id and the call's position, deterministic and unique within the
// conversation, and is never sent back (see AppendRequest).
func (d *Decoder) call(id, name string, args json.RawMessage, signature string, out []llm.Event) []llm.Event {
	idx := d.calls
	d.calls++
	if id == "" {
		id = "fc_" + orDefault(d.id, name) + "_" + strconv.Itoa(idx)
	}
	if signature != "" {
		d.callSigs = append(d.callSigs, signedCall{index: idx, signature: signature})
	}
	out = append(out, llm.Event{Kind: llm.EventToolCallStart, Index: idx, CallID: id, Name: name})
	a := []byte("{}")
	if wire.IsObject(args) {
		if c, err := wire.Compact(args); err == nil {
			a = c
		}
	}
	out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: idx, Text: string(a)})
	return append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: idx})
}

// End finishes the stream at EOF: it closes open blocks, reports usage and
// the signatures, and emits Done with the collapsed finish reason. A
// stream cut before any finishReason (and not blocked) is a protocol error,
// which never authorizes tools.
func (d *Decoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	d.ended = true
	if !d.started {
		return out, failure.Protocol(label, "stream ended without any chunk", nil)
	}
	out = d.closeText(d.closeThinking(out))
	if d.usage != nil {
		out = append(out, llm.Event{Kind: llm.EventUsage, Usage: d.usage})
	}
	if r := appendReplay(d.textSig, d.callSigs); r != nil {
		out = append(out, llm.Event{Kind: llm.EventReplayState, Replay: r})
	}
	if d.blocked != "" {
		return append(out, filtered(d.blocked)), nil
	}
	switch d.finish {
	case "":
		return out, failure.Protocol(label, "stream ended without finishReason", nil)
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
		msg := "the model stopped with " + d.finish
		if d.finishMsg != "" {
			msg += ": " + d.finishMsg
		}
		return out, failure.InBand(label, d.finish, msg)
	case "MAX_TOKENS":
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishLength}), nil
	case "SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		if d.calls > 0 {
			return out, &llm.ProviderError{Class: llm.ErrorContentFilter, Message: label + " content filter (" + d.finish + ") stopped a turn with tool calls"}
		}
		return append(out, filtered(d.finish)), nil
	}
	if d.calls > 0 {
		return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishToolUse}), nil
	}
	return append(out, llm.Event{Kind: llm.EventDone, Finish: llm.FinishStop}), nil
}

// filtered is the Done of a turn Gemini's safety filters stopped, naming
// the reason in lower case (safety, prohibited_content).
func filtered(reason string) llm.Event {
	return llm.Event{Kind: llm.EventDone, Finish: llm.FinishContentFilter,
		Filter: []llm.FilterHit{{Category: strings.ToLower(reason)}}}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
