package providertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// Decoder is the shape of every protocol decoder in adapters/provider.
type Decoder interface {
	Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error)
	End(out []llm.Event) ([]llm.Event, error)
	Ended() bool
}

// DecodeAll runs a whole SSE body through d, as the provider client does,
// and returns every event delivered before the stream ended and the error
// that ended it (nil after Done).
func DecodeAll(d Decoder, body []byte) ([]llm.Event, error) {
	r := sse.NewReader(bytes.NewReader(body), 0)
	var events []llm.Event
	for !d.Ended() {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return d.End(events)
		}
		if err != nil {
			return events, err
		}
		if events, err = d.Decode(ev, events); err != nil {
			return events, err
		}
	}
	return events, nil
}

// Summary is what a stream said, assembled from its events.
type Summary struct {
	ModelCallID string
	Text        string
	Thinking    string
	Calls       []SummaryCall
	Usage       *llm.Usage
	Replay      *llm.ReplayState
	// Finish is 0 when the stream never reached Done.
	Finish llm.FinishReason
	// Filter is what a content filter flagged (Done's Filter).
	Filter []llm.FilterHit
}

// SummaryCall is one tool call with its concatenated argument deltas.
type SummaryCall struct {
	Index        int
	CallID, Name string
	Arguments    string
	Ended        bool
}

// Summarize folds events into a Summary.
func Summarize(events []llm.Event) Summary {
	var s Summary
	var text, thinking strings.Builder
	for _, e := range events {
		switch e.Kind {
		case llm.EventStart:
			s.ModelCallID = e.ModelCallID
		case llm.EventTextDelta:
			text.WriteString(e.Text)
		case llm.EventThinkingDelta:
			thinking.WriteString(e.Text)
		case llm.EventToolCallStart:
			s.Calls = append(s.Calls, SummaryCall{Index: e.Index, CallID: e.CallID, Name: e.Name})
		case llm.EventToolCallArgumentsDelta:
			for i := range s.Calls {
				if s.Calls[i].Index == e.Index {
					s.Calls[i].Arguments += e.Text
				}
			}
		case llm.EventToolCallEnd:
			for i := range s.Calls {
				if s.Calls[i].Index == e.Index {
					s.Calls[i].Ended = true
				}
			}
		case llm.EventUsage:
			s.Usage = e.Usage
		case llm.EventReplayState:
			s.Replay = e.Replay
		case llm.EventDone:
			s.Finish, s.Filter = e.Finish, e.Filter
		}
	}
	s.Text, s.Thinking = text.String(), thinking.String()
	return s
}

// CheckGrammar reports the first violation of the model event grammar
// (see llm.EventKind): one Start first; text and thinking blocks opened
// before their deltas and closed once; tool calls started with a fresh index
// and call id before their deltas and ended once; at most one usage and one
// replay state; Done last, with every block closed. A prefix of a valid
// stream (no Done) is accepted.
func CheckGrammar(events []llm.Event) error {
	started, text, thinking, done := false, false, false, false
	open := map[int]bool{}
	seenIndex, seenID := map[int]bool{}, map[string]bool{}
	usage, replay := 0, 0
	for i, e := range events {
		fail := func(msg string) error { return fmt.Errorf("event %d (kind %d): %s", i, e.Kind, msg) }
		if done {
			return fail("event after Done")
		}
		if e.Kind != llm.EventStart && !started {
			return fail("event before Start")
		}
		switch e.Kind {
		case llm.EventStart:
			if started {
				return fail("second Start")
			}
			started = true
		case llm.EventTextStart, llm.EventTextDelta, llm.EventTextEnd:
			if (e.Kind == llm.EventTextStart) == text {
				return fail("text block state")
			}
			if e.Kind != llm.EventTextDelta {
				text = !text
			}
		case llm.EventThinkingStart, llm.EventThinkingDelta, llm.EventThinkingEnd:
			if (e.Kind == llm.EventThinkingStart) == thinking {
				return fail("thinking block state")
			}
			if e.Kind != llm.EventThinkingDelta {
				thinking = !thinking
			}
		case llm.EventToolCallStart:
			if seenIndex[e.Index] || seenID[e.CallID] || e.CallID == "" || e.Name == "" {
				return fail("tool call start without a fresh index, call id and name")
			}
			seenIndex[e.Index], seenID[e.CallID], open[e.Index] = true, true, true
		case llm.EventToolCallArgumentsDelta, llm.EventToolCallEnd:
			if !open[e.Index] {
				return fail("tool call event for an index that is not open")
			}
			if e.Kind == llm.EventToolCallEnd {
				open[e.Index] = false
			}
		case llm.EventUsage:
			if usage++; usage > 1 {
				return fail("second Usage")
			}
		case llm.EventReplayState:
			if replay++; replay > 1 {
				return fail("second ReplayState")
			}
		case llm.EventDone:
			for _, o := range open {
				if o {
					return fail("Done with an open tool call")
				}
			}
			if text || thinking {
				return fail("Done with an open block")
			}
			done = true
		}
	}
	return nil
}
