package openai

import (
	"encoding/json"
	"strconv"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// ResponsesReply re-encodes a model call's events as a Responses answer:
// the response's events when the caller streams, else the response object
// at the end. Deltas stream as they come; every output item's
// output_item.done waits for the end, when a Responses target's reasoning
// items (their ids and encrypted content) are known, so the caller
// records each reasoning item with its encrypted content and ahead of the
// items it belongs to. Reasoning items of a Responses target are given
// back whole; a thinking block of another protocol becomes a reasoning
// item with a summary and no encrypted content. Usage is the target's, in
// Responses' shape. It is used by one goroutine.
type ResponsesReply struct {
	stream    bool
	id, model string
	created   int64
	seq       int64
	started   bool
	items     []*respOut
	text      *respOut // the open message item
	think     *respOut // the open reasoning item
	calls     map[int]*respOut
	replay    [][]byte
	final     []*respOut // the items in their final order, once known
	u         llm.Usage
	finish    llm.FinishReason
}

type respOut struct {
	index    int
	kind     string // message, reasoning, function_call
	id       string
	text     []byte
	callID   string
	name     string
	args     []byte
	replayed []byte // a Responses target's reasoning item, whole
}

// NewResponsesReply returns the reply of a call; created is the Unix time
// of the answer.
func NewResponsesReply(id, model string, created int64, stream bool) *ResponsesReply {
	return &ResponsesReply{stream: stream, id: id, model: model, created: created, calls: map[int]*respOut{}}
}

// ContentType is the Content-Type of the answer.
func (r *ResponsesReply) ContentType() string {
	if r.stream {
		return "text/event-stream"
	}
	return "application/json"
}

func (r *ResponsesReply) event(dst []byte, typ string, body func(w *wire.Writer)) []byte {
	if !r.stream {
		return dst
	}
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", typ)
	w.Key("sequence_number")
	w.Int(r.seq)
	r.seq++
	body(&w)
	w.EndObject()
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, w.B...)
	return append(dst, "\n\n"...)
}

// response writes the "response" field holding the response object.
func (r *ResponsesReply) response(w *wire.Writer, status string, output bool) {
	w.Key("response")
	r.writeResponse(w, status, output)
}

// writeResponse writes the response object, with its output and usage
// once the answer is complete.
func (r *ResponsesReply) writeResponse(w *wire.Writer, status string, output bool) {
	w.BeginObject()
	w.StringField("id", r.id)
	w.StringField("object", "response")
	w.Key("created_at")
	w.Int(r.created)
	w.StringField("status", status)
	w.StringField("model", r.model)
	w.Key("output")
	w.BeginArray()
	if output {
		for _, it := range r.ordered() {
			r.writeItem(w, it)
		}
	}
	w.EndArray()
	if output {
		w.Key("usage")
		writeRespUsage(w, r.u)
	}
	w.EndObject()
}

// Start appends response.created and response.in_progress when streaming.
func (r *ResponsesReply) Start(dst []byte) []byte {
	if r.started {
		return dst
	}
	r.started = true
	dst = r.event(dst, "response.created", func(w *wire.Writer) { r.response(w, "in_progress", false) })
	return r.event(dst, "response.in_progress", func(w *wire.Writer) { r.response(w, "in_progress", false) })
}

func (r *ResponsesReply) add(dst []byte, kind string) ([]byte, *respOut) {
	it := &respOut{index: len(r.items), kind: kind}
	prefix := map[string]string{"message": "msg_", "reasoning": "rs_", "function_call": "fc_"}[kind]
	it.id = prefix + r.id + "_" + strconv.Itoa(it.index)
	r.items = append(r.items, it)
	dst = r.event(dst, "response.output_item.added", func(w *wire.Writer) {
		w.Key("output_index")
		w.Int(int64(it.index))
		w.Key("item")
		r.writeItemHead(w, it, "in_progress")
		w.EndObject()
	})
	return dst, it
}

func (r *ResponsesReply) partEvent(dst []byte, typ string, it *respOut, body func(w *wire.Writer)) []byte {
	return r.event(dst, typ, func(w *wire.Writer) {
		w.StringField("item_id", it.id)
		w.Key("output_index")
		w.Int(int64(it.index))
		body(w)
	})
}

// Event appends the answer's bytes for ev.
func (r *ResponsesReply) Event(dst []byte, ev llm.Event) []byte {
	dst = r.Start(dst)
	switch ev.Kind {
	case llm.EventTextStart, llm.EventTextDelta:
		if r.text == nil {
			dst, r.text = r.add(dst, "message")
			dst = r.partEvent(dst, "response.content_part.added", r.text, func(w *wire.Writer) {
				w.Key("content_index")
				w.Int(0)
				w.Key("part")
				writeOutputText(w, "")
			})
		}
		if ev.Text != "" {
			r.text.text = append(r.text.text, ev.Text...)
			dst = r.partEvent(dst, "response.output_text.delta", r.text, func(w *wire.Writer) {
				w.Key("content_index")
				w.Int(0)
				w.StringField("delta", ev.Text)
			})
		}
	case llm.EventTextEnd:
		if it := r.text; it != nil {
			r.text = nil
			dst = r.partEvent(dst, "response.output_text.done", it, func(w *wire.Writer) {
				w.Key("content_index")
				w.Int(0)
				w.StringField("text", string(it.text))
			})
			dst = r.partEvent(dst, "response.content_part.done", it, func(w *wire.Writer) {
				w.Key("content_index")
				w.Int(0)
				w.Key("part")
				writeOutputText(w, string(it.text))
			})
		}
	case llm.EventThinkingStart, llm.EventThinkingDelta:
		if r.think == nil {
			dst, r.think = r.add(dst, "reasoning")
			dst = r.partEvent(dst, "response.reasoning_summary_part.added", r.think, func(w *wire.Writer) {
				w.Key("summary_index")
				w.Int(0)
				w.Key("part")
				writeSummary(w, "")
			})
		}
		if ev.Text != "" {
			r.think.text = append(r.think.text, ev.Text...)
			dst = r.partEvent(dst, "response.reasoning_summary_text.delta", r.think, func(w *wire.Writer) {
				w.Key("summary_index")
				w.Int(0)
				w.StringField("delta", ev.Text)
			})
		}
	case llm.EventThinkingEnd:
		if it := r.think; it != nil {
			r.think = nil
			dst = r.partEvent(dst, "response.reasoning_summary_text.done", it, func(w *wire.Writer) {
				w.Key("summary_index")
				w.Int(0)
				w.StringField("text", string(it.text))
			})
			dst = r.partEvent(dst, "response.reasoning_summary_part.done", it, func(w *wire.Writer) {
				w.Key("summary_index")
				w.Int(0)
				w.Key("part")
				writeSummary(w, string(it.text))
			})
		}
	case llm.EventToolCallStart:
		var it *respOut
		dst, it = r.add(dst, "function_call")
		it.callID, it.name = ev.CallID, ev.Name
		r.calls[ev.Index] = it
	case llm.EventToolCallArgumentsDelta:
		if it := r.calls[ev.Index]; it != nil {
			it.args = append(it.args, ev.Text...)
			dst = r.partEvent(dst, "response.function_call_arguments.delta", it, func(w *wire.Writer) {
				w.StringField("delta", ev.Text)
			})
		}
	case llm.EventToolCallEnd:
		if it := r.calls[ev.Index]; it != nil {
			delete(r.calls, ev.Index)
			dst = r.partEvent(dst, "response.function_call_arguments.done", it, func(w *wire.Writer) {
				w.StringField("arguments", string(validArgs(it.args)))
			})
		}
	case llm.EventReplayState:
		if ev.Replay != nil && ev.Replay.Kind == llm.ProviderOpenAIResponses {
			var v struct {
				Items []json.RawMessage `json:"items"`
			}
			if json.Unmarshal(ev.Replay.Value, &v) == nil {
				for _, it := range v.Items {
					r.replay = append(r.replay, it)
				}
			}
		}
	case llm.EventUsage:
		if ev.Usage != nil {
			r.u = *ev.Usage
		}
	case llm.EventDone:
		r.finish = ev.Finish
	}
	return dst
}

// ordered are the output items in the order the caller records them: a
// Responses target's reasoning items fill the reasoning items streamed as
// summaries, in order; those left over come first.
func (r *ResponsesReply) ordered() []*respOut {
	if r.final != nil {
		return r.final
	}
	replay := r.replay
	var out []*respOut
	for _, it := range r.items {
		if it.kind == "reasoning" && it.replayed == nil && len(replay) > 0 {
			it.replayed, replay = replay[0], replay[1:]
		}
	}
	for i, raw := range replay {
		out = append(out, &respOut{index: len(r.items) + i, kind: "reasoning", replayed: raw})
	}
	r.final = append(out, r.items...)
	return r.final
}

func writeOutputText(w *wire.Writer, text string) {
	w.BeginObject()
	w.StringField("type", "output_text")
	w.StringField("text", text)
	w.Key("annotations")
	w.BeginArray()
	w.EndArray()
	w.EndObject()
}

func writeSummary(w *wire.Writer, text string) {
	w.BeginObject()
	w.StringField("type", "summary_text")
	w.StringField("text", text)
	w.EndObject()
}

// writeItemHead opens an item and writes its fields as added (no
// content yet); the caller closes it.
func (r *ResponsesReply) writeItemHead(w *wire.Writer, it *respOut, status string) {
	w.BeginObject()
	w.StringField("id", it.id)
	w.StringField("type", it.kind)
	switch it.kind {
	case "message":
		w.StringField("status", status)
		w.StringField("role", "assistant")
		w.Key("content")
		w.BeginArray()
		w.EndArray()
	case "reasoning":
		w.Key("summary")
		w.BeginArray()
		w.EndArray()
	case "function_call":
		w.StringField("status", status)
		w.StringField("call_id", it.callID)
		w.StringField("name", it.name)
		w.StringField("arguments", "")
	}
}

// writeItem writes an item whole.
func (r *ResponsesReply) writeItem(w *wire.Writer, it *respOut) {
	if it.replayed != nil {
		_ = w.Raw(it.replayed) // valid: the decoder wrote it
		return
	}
	w.BeginObject()
	w.StringField("id", it.id)
	w.StringField("type", it.kind)
	switch it.kind {
	case "message":
		w.StringField("status", "completed")
		w.StringField("role", "assistant")
		w.Key("content")
		w.BeginArray()
		writeOutputText(w, string(it.text))
		w.EndArray()
	case "reasoning":
		w.Key("summary")
		w.BeginArray()
		if len(it.text) > 0 {
			writeSummary(w, string(it.text))
		}
		w.EndArray()
	case "function_call":
		w.StringField("status", "completed")
		w.StringField("call_id", it.callID)
		w.StringField("name", it.name)
		w.StringField("arguments", string(validArgs(it.args)))
	}
	w.EndObject()
}

func writeRespUsage(w *wire.Writer, u llm.Usage) {
	in := u.Input + u.CacheRead + u.CacheWrite
	w.BeginObject()
	w.Key("input_tokens")
	w.Int(in)
	w.Key("input_tokens_details")
	w.BeginObject()
	w.Key("cached_tokens")
	w.Int(u.CacheRead)
	w.EndObject()
	w.Key("output_tokens")
	w.Int(u.Output)
	w.Key("output_tokens_details")
	w.BeginObject()
	w.Key("reasoning_tokens")
	w.Int(u.Reasoning)
	w.EndObject()
	w.Key("total_tokens")
	w.Int(in + u.Output)
	w.EndObject()
}

// Finish appends the end of a complete answer: each item's
// output_item.done and response.completed (response.incomplete after a
// length or content filter stop) when streaming, else the response.
func (r *ResponsesReply) Finish(dst []byte) []byte {
	dst = r.Start(dst)
	status, typ := "completed", "response.completed"
	if r.finish == llm.FinishLength || r.finish == llm.FinishContentFilter {
		status, typ = "incomplete", "response.incomplete"
	}
	if !r.stream {
		w := wire.Writer{B: dst}
		r.writeResponse(&w, status, true)
		return w.B
	}
	for i, it := range r.ordered() {
		dst = r.event(dst, "response.output_item.done", func(w *wire.Writer) {
			w.Key("output_index")
			w.Int(int64(i))
			w.Key("item")
			r.writeItem(w, it)
		})
	}
	return r.event(dst, typ, func(w *wire.Writer) { r.response(w, status, true) })
}

// Fail appends the error that ends the answer: response.failed when
// streaming, else the error body.
func (r *ResponsesReply) Fail(dst []byte, typ, code, message string) []byte {
	if !r.stream {
		return AppendError(dst, typ, code, message)
	}
	dst = r.Start(dst)
	return r.event(dst, "response.failed", func(w *wire.Writer) {
		w.Key("response")
		w.BeginObject()
		w.StringField("id", r.id)
		w.StringField("object", "response")
		w.StringField("status", "failed")
		w.StringField("model", r.model)
		w.Key("error")
		w.BeginObject()
		w.StringField("code", code)
		w.StringField("message", message)
		w.EndObject()
		w.EndObject()
	})
}
