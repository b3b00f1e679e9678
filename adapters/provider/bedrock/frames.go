package bedrock

import (
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/sse"
)

// maxPayload bounds one event-stream message's payload; a model's event is
// a few kilobytes.
const maxPayload = 1 << 20

// frames reads AWS event-stream messages as events: an event's name is its
// :event-type; an exception's is "exception/" and its :exception-type; an
// error message's "error/" and its :error-code, with :error-message as data.
type frames struct {
	r   io.Reader
	dec *eventstream.Decoder
	buf []byte
}

func newFrames(r io.Reader) protocol.Events {
	return &frames{r: r, dec: eventstream.NewDecoder()}
}

// Next implements protocol.Events.
func (f *frames) Next() (sse.Event, error) {
	msg, err := f.dec.Decode(f.r, f.buf[:0])
	if err != nil {
		if errors.Is(err, io.EOF) {
			return sse.Event{}, io.EOF
		}
		return sse.Event{}, fmt.Errorf("event stream: %w", err)
	}
	if len(msg.Payload) > maxPayload {
		return sse.Event{}, fmt.Errorf("event stream: a message of %d bytes is over the %d-byte bound", len(msg.Payload), maxPayload)
	}
	f.buf = msg.Payload
	header := func(name string) string {
		if v := msg.Headers.Get(name); v != nil {
			return v.String()
		}
		return ""
	}
	switch header(":message-type") {
	case "exception":
		return sse.Event{Name: []byte("exception/" + header(":exception-type")), Data: msg.Payload}, nil
	case "error":
		return sse.Event{Name: []byte("error/" + header(":error-code")), Data: []byte(header(":error-message"))}, nil
	default:
		return sse.Event{Name: []byte(header(":event-type")), Data: msg.Payload}, nil
	}
}
