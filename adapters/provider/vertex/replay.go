package vertex

import (
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// The Vertex protocols reuse the writer and decoder of the vendor's own
// protocol (anthropic, gemini), whose replay state (signed thinking
// blocks, thought signatures) carries that protocol's kind. Replay state
// goes back only to the endpoint kind that produced it, so at the
// boundary it is translated: the decoder stamps what it produces with the
// Vertex kind, and a request hands the vendor's writer only what a Vertex
// endpoint of that kind produced, under the vendor's kind. A turn the
// vendor's own API produced replays nothing here, and one produced here
// nothing there.

// replayFor returns msgs with the replay state of kind own under vendor's
// kind and any other replay state dropped. msgs itself is never written:
// a changed message is a copy in a new slice, made only when one changes.
func replayFor(msgs []llm.Message, own, vendor llm.ProviderKind) []llm.Message {
	var out []llm.Message
	for i := range msgs {
		a := msgs[i].Assistant
		if a == nil || a.Replay == nil {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		c := *a
		if a.Replay.Kind == own {
			c.Replay = &llm.ReplayState{Kind: vendor, Value: a.Replay.Value}
		} else {
			c.Replay = nil
		}
		out[i].Assistant = &c
	}
	if out == nil {
		return msgs
	}
	return out
}

// decoder is the vendor's decoder with its replay state stamped with the
// Vertex kind.
type decoder struct {
	protocol.Decoder
	vendor, own llm.ProviderKind
}

func (d *decoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	n := len(out)
	out, err := d.Decoder.Decode(ev, out)
	d.stamp(out[n:])
	return out, err
}

func (d *decoder) End(out []llm.Event) ([]llm.Event, error) {
	n := len(out)
	out, err := d.Decoder.End(out)
	d.stamp(out[n:])
	return out, err
}

func (d *decoder) stamp(evs []llm.Event) {
	for i := range evs {
		if r := evs[i].Replay; evs[i].Kind == llm.EventReplayState && r != nil && r.Kind == d.vendor {
			evs[i].Replay = &llm.ReplayState{Kind: d.own, Value: r.Value}
		}
	}
}
