package providertest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
)

// BedrockEvent encodes one AWS event-stream event message with the SDK's
// own encoder (aws/protocol/eventstream): the :event-type,
// :content-type and :message-type headers and the JSON payload, framed with
// its prelude and message CRCs as Bedrock sends them.
func BedrockEvent(eventType string, payload []byte) []byte {
	var buf bytes.Buffer
	msg := eventstream.Message{Payload: payload}
	msg.Headers.Set(":event-type", eventstream.StringValue(eventType))
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	msg.Headers.Set(":message-type", eventstream.StringValue("event"))
	if err := eventstream.NewEncoder().Encode(&buf, msg); err != nil {
		panic(err) // a message of bounded headers always encodes
	}
	return buf.Bytes()
}

// BedrockException encodes an exception message (throttlingException,
// validationException, …) with its {"message":…} payload.
func BedrockException(exceptionType, message string) []byte {
	var buf bytes.Buffer
	msg := eventstream.Message{Payload: wire.AppendString([]byte(`{"message":`), message)}
	msg.Payload = append(msg.Payload, '}')
	msg.Headers.Set(":exception-type", eventstream.StringValue(exceptionType))
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
	if err := eventstream.NewEncoder().Encode(&buf, msg); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// BedrockConverse renders t as a ConverseStream response, following the
// event shapes of Bedrock's ConverseStream API reference: messageStart;
// reasoning deltas (text, then the signature) in block 0 when t thinks; text
// deltas in the next block (Converse sends no contentBlockStart for text or
// reasoning); per call a contentBlockStart with toolUseId and name, its input
// as JSON fragments, contentBlockStop; messageStop with the stop reason; and
// metadata with usage (inputTokens excludes cache reads and writes) and
// metrics.
func BedrockConverse(t Turn) []byte {
	var b []byte
	emit := func(typ string, fields func(w *wire.Writer)) {
		var w wire.Writer
		w.BeginObject()
		fields(&w)
		w.EndObject()
		b = append(b, BedrockEvent(typ, w.B)...)
	}
	emit("messageStart", func(w *wire.Writer) { w.StringField("role", "assistant") })
	index := int64(0)
	delta := func(body func(w *wire.Writer)) {
		emit("contentBlockDelta", func(w *wire.Writer) {
			w.Key("contentBlockIndex")
			w.Int(index)
			w.Key("delta")
			w.BeginObject()
			body(w)
			w.EndObject()
		})
	}
	stop := func() {
		emit("contentBlockStop", func(w *wire.Writer) { w.Key("contentBlockIndex"); w.Int(index) })
		index++
	}
	if len(t.Thinking) > 0 {
		for _, d := range t.Thinking {
			delta(func(w *wire.Writer) {
				w.Key("reasoningContent")
				w.BeginObject()
				w.StringField("text", d)
				w.EndObject()
			})
		}
		if t.Signature != "" {
			delta(func(w *wire.Writer) {
				w.Key("reasoningContent")
				w.BeginObject()
				w.StringField("signature", t.Signature)
				w.EndObject()
			})
		}
		stop()
	}
	if len(t.Text) > 0 {
		for _, d := range t.Text {
			delta(func(w *wire.Writer) { w.StringField("text", d) })
		}
		stop()
	}
	for _, c := range t.Calls {
		emit("contentBlockStart", func(w *wire.Writer) {
			w.Key("contentBlockIndex")
			w.Int(index)
			w.Key("start")
			w.BeginObject()
			w.Key("toolUse")
			w.BeginObject()
			w.StringField("toolUseId", c.ID)
			w.StringField("name", c.Name)
			w.EndObject()
			w.EndObject()
		})
		for _, a := range c.Arguments {
			delta(func(w *wire.Writer) {
				w.Key("toolUse")
				w.BeginObject()
				w.StringField("input", a)
				w.EndObject()
			})
		}
		stop()
	}
	reason := t.Finish
	if reason == "" {
		reason = "end_turn"
		if len(t.Calls) > 0 {
			reason = "tool_use"
		}
	}
	emit("messageStop", func(w *wire.Writer) { w.StringField("stopReason", reason) })
	u := t.Usage
	emit("metadata", func(w *wire.Writer) {
		w.Key("usage")
		w.BeginObject()
		for _, f := range []struct {
			k string
			v int64
		}{{"inputTokens", u.Input}, {"outputTokens", u.Output}, {"totalTokens", u.Input + u.Output + u.CacheRead + u.CacheWrite},
			{"cacheReadInputTokens", u.CacheRead}, {"cacheWriteInputTokens", u.CacheWrite}} {
			w.Key(f.k)
			w.Int(f.v)
		}
		w.EndObject()
		w.Key("metrics")
		w.BeginObject()
		w.Key("latencyMs")
		w.Int(420)
		w.EndObject()
	})
	return b
}

// BedrockAnthropic renders t as an InvokeModelWithResponseStream response
// of an Anthropic model: each event of AnthropicSSE(t) becomes a chunk
// event whose bytes are the event's JSON, base64 in the payload, as
// Bedrock's Anthropic Claude Messages API page shows.
func BedrockAnthropic(t Turn) []byte {
	var b []byte
	r := sse.NewReader(bytes.NewReader(AnthropicSSE(t)), 0)
	for {
		ev, err := r.Next()
		if err != nil {
			return b
		}
		payload := wire.AppendString([]byte(`{"bytes":`), base64.StdEncoding.EncodeToString(ev.Data))
		b = append(b, BedrockEvent("chunk", append(payload, '}'))...)
	}
}

// EventStream is a 200 reply that sends an event-stream body one message
// per step, with Bedrock's content type.
func EventStream(body []byte) Reply {
	var steps []Step
	for len(body) >= 4 {
		n := int(binary.BigEndian.Uint32(body))
		if n < 4 || n > len(body) {
			n = len(body)
		}
		steps = append(steps, Step{Data: body[:n]})
		body = body[n:]
	}
	return Reply{Steps: steps, Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}}
}
