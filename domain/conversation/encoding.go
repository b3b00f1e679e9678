package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"

	"keygate/domain/llm"
)

// encodingVersion is written into every encoded message. Changing the
// encoding changes every digest, so a new version must keep decoding the old
// one and re-encode to the same bytes.
const encodingVersion = 1

// The wire* mirrors fix the field order and names of the canonical encoding.
// They carry no struct tags: the exported field names are the JSON keys, and
// every field is always present, so the bytes depend only on the values.
type wireMessage struct {
	V              int
	ID             string
	Role           string
	Origin         string
	RuntimeEventID string
	ToolRoundID    string
	Parts          []wirePart
	Assistant      *wireAssistant
	ToolResult     *wireToolResult
}

type wirePart struct {
	Kind  string
	Text  string
	Image *wireImage
}

type wireImage struct {
	MIMEType string
	Data     []byte
	BlobID   string
	Path     string
}

type wireAssistant struct {
	Text     string
	Thinking string
	Replay   *wireReplay
	Calls    []wireCall
}

type wireReplay struct {
	Kind  string
	Value []byte
}

type wireCall struct {
	Index         int
	CallID        string
	Name          string
	Arguments     string
	ArgumentError string
}

type wireToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
	Image   *wireImage
}

var partKinds = map[llm.PartKind]string{llm.PartText: "text", llm.PartImage: "image"}

func encodeMessage(m Message) []byte {
	w := wireMessage{
		V: encodingVersion, ID: m.id, Role: m.role.String(), Origin: m.origin.String(),
		RuntimeEventID: m.runtimeEventID, ToolRoundID: m.toolRoundID,
	}
	for _, p := range m.parts {
		w.Parts = append(w.Parts, wirePart{Kind: partKinds[p.Kind], Text: p.Text, Image: toWireImage(p.Image)})
	}
	if a := m.assistant; a != nil {
		wa := &wireAssistant{Text: a.Text, Thinking: a.Thinking}
		if a.Replay != nil {
			wa.Replay = &wireReplay{Kind: string(a.Replay.Kind), Value: nilIfEmpty(a.Replay.Value)}
		}
		for _, c := range a.Calls {
			wa.Calls = append(wa.Calls, wireCall{
				Index: c.Index, CallID: c.CallID, Name: c.Name,
				Arguments: string(c.Arguments), ArgumentError: c.ArgumentError,
			})
		}
		w.Assistant = wa
	}
	if r := m.toolResult; r != nil {
		w.ToolResult = &wireToolResult{
			CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError, Image: toWireImage(r.Image),
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// HTML escaping would only make stored prompts harder to read.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		// The mirrors hold only strings, ints, bools and byte slices, and
		// validation guarantees valid UTF-8, so encoding cannot fail.
		panic(fmt.Sprintf("conversation: encode message %q: %v", m.id, err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func toWireImage(img *llm.Image) *wireImage {
	if img == nil {
		return nil
	}
	return &wireImage{MIMEType: img.MIMEType, Data: nilIfEmpty(img.Data), BlobID: img.BlobID, Path: img.Path}
}

func fromWireImage(w *wireImage) *llm.Image {
	if w == nil {
		return nil
	}
	return &llm.Image{MIMEType: w.MIMEType, Data: w.Data, BlobID: w.BlobID, Path: w.Path}
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// DecodeMessage rebuilds a message from its canonical encoding. It is the
// only way back from storage: the message is validated like a new one, and
// bytes that are not exactly the canonical encoding of the result are
// rejected with ErrNonCanonical, so a stored digest can always be recomputed.
func DecodeMessage(data []byte) (Message, error) {
	var w wireMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Message{}, fmt.Errorf("decode message: %w: %w", ErrNonCanonical, err)
	}
	if w.V != encodingVersion {
		return Message{}, fmt.Errorf("decode message: %w: version %d", ErrNonCanonical, w.V)
	}
	spec, err := specFromWire(w)
	if err != nil {
		return Message{}, fmt.Errorf("decode message: %w", err)
	}
	m, err := NewMessage(spec)
	if err != nil {
		return Message{}, fmt.Errorf("decode message: %w", err)
	}
	if !bytes.Equal(m.encoded, data) {
		return Message{}, fmt.Errorf("decode message %q: %w", m.id, ErrNonCanonical)
	}
	return m, nil
}

func specFromWire(w wireMessage) (MessageSpec, error) {
	spec := MessageSpec{ID: w.ID, RuntimeEventID: w.RuntimeEventID, ToolRoundID: w.ToolRoundID}
	var ok bool
	if spec.Role, ok = parseRole(w.Role); !ok {
		return spec, invalidf("%q: unknown role %q", w.ID, w.Role)
	}
	if spec.Origin, ok = parseOrigin(w.Origin); !ok {
		return spec, invalidf("%q: unknown origin %q", w.ID, w.Origin)
	}
	for _, p := range w.Parts {
		kind, ok := parsePartKind(p.Kind)
		if !ok {
			return spec, invalidf("%q: unknown part kind %q", w.ID, p.Kind)
		}
		spec.Parts = append(spec.Parts, llm.Part{Kind: kind, Text: p.Text, Image: fromWireImage(p.Image)})
	}
	if wa := w.Assistant; wa != nil {
		a := &llm.Assistant{Text: wa.Text, Thinking: wa.Thinking}
		if wa.Replay != nil {
			a.Replay = &llm.ReplayState{Kind: llm.ProviderKind(wa.Replay.Kind), Value: wa.Replay.Value}
		}
		for _, c := range wa.Calls {
			a.Calls = append(a.Calls, llm.ToolCall{
				Index: c.Index, CallID: c.CallID, Name: c.Name,
				Arguments: []byte(c.Arguments), ArgumentError: c.ArgumentError,
			})
		}
		spec.Assistant = a
	}
	if wr := w.ToolResult; wr != nil {
		spec.ToolResult = &llm.ToolResult{
			CallID: wr.CallID, Name: wr.Name, Content: wr.Content, IsError: wr.IsError, Image: fromWireImage(wr.Image),
		}
	}
	return spec, nil
}

func parseRole(s string) (llm.Role, bool) {
	for r := llm.RoleSystem; r <= llm.RoleTool; r++ {
		if r.String() == s {
			return r, true
		}
	}
	return 0, false
}

func parsePartKind(s string) (llm.PartKind, bool) {
	for k, name := range partKinds {
		if name == s {
			return k, true
		}
	}
	return 0, false
}
