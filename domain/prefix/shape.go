package prefix

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"keygate/domain/llm"
)

// ShapeLayout numbers the way [ShapeOf] digests a request. Shapes of
// different layouts cannot be compared; a change to the digests bumps it.
const ShapeLayout = 1

// Digest stands for one model-visible value: the first 8 bytes of its
// SHA-256. Two digests tell two values apart (a collision is a 2^-64
// chance, harmless for a diagnosis) without holding either. Like any
// unkeyed hash it lets someone who already guesses a value confirm the
// guess, which matters only for very short values. The zero Digest stands
// for an absent value (no image, no replay state).
type Digest [8]byte

// Shape is a request reduced to what [CompareShapes] needs to locate a
// cache break exactly as [IsStablePrefix] does: the model id, message ids
// (which never reach a provider) and roles, sizes, token estimates and one
// digest per model-visible value. It holds no text of the conversation, so
// it may be kept when the request itself must not be.
type Shape struct {
	// Layout is the ShapeLayout that made the shape.
	Layout int
	Model  string
	// Prompt is the request's PromptName (the mode it was made in); empty
	// when unknown.
	Prompt string
	// CacheKey and Instructions are digests of the request's fields.
	CacheKey, Instructions Digest
	Tools                  []ToolShape
	Messages               []MessageShape
	// PreambleTokens estimates instructions and tools, which lead every
	// prompt.
	PreambleTokens int64
}

// ToolShape stands for one offered tool.
type ToolShape struct {
	Name, Description, Parameters Digest
}

// MessageShape stands for one message.
type MessageShape struct {
	ID   string
	Role llm.Role
	// Bytes is the size of the model-visible content: texts, tool call
	// arguments, tool output, image bytes.
	Bytes int64
	// Tokens estimates the message alone, as llm.EstimateMessages does.
	Tokens int64
	// Values are the message's model-visible values in the order
	// IsStablePrefix compares them. Counts and presence flags are stored as
	// plain numbers among the digests, so the sequence also encodes its own
	// structure and every position can be named (see valueFields).
	Values []Digest
}

// ShapeOf returns the shape of r.
func ShapeOf(r llm.Request) Shape {
	s := Shape{
		Layout: ShapeLayout, Model: r.Model, Prompt: r.PromptName,
		CacheKey: digestString(r.CacheKey), Instructions: digestString(r.Instructions),
		PreambleTokens: llm.EstimateRequest(llm.Request{Instructions: r.Instructions, Tools: r.Tools}),
		Tools:          make([]ToolShape, len(r.Tools)),
		Messages:       make([]MessageShape, len(r.Messages)),
	}
	for i, t := range r.Tools {
		s.Tools[i] = ToolShape{Name: digestString(t.Name), Description: digestString(t.Description), Parameters: digest(t.Parameters)}
	}
	for i, m := range r.Messages {
		s.Messages[i] = MessageShape{ID: m.ID, Role: m.Role, Bytes: contentBytes(m),
			Tokens: llm.EstimateMessages([]llm.Message{m}), Values: messageValues(m)}
	}
	return s
}

// PromptTokens estimates the whole prompt of s.
func (s Shape) PromptTokens() int64 { return s.PrefixTokens(len(s.Messages)) }

// PrefixTokens estimates the part of the prompt made of the instructions,
// the tools and the first n messages. The sum of per-message estimates is
// within a few tokens of llm.EstimateRequest of the same messages.
func (s Shape) PrefixTokens(n int) int64 {
	total := s.PreambleTokens
	for _, m := range s.Messages[:min(max(n, 0), len(s.Messages))] {
		total += m.Tokens
	}
	return total
}

// CompareShapes is IsStablePrefix over shapes: for requests a and b,
// CompareShapes(ShapeOf(a), ShapeOf(b)) reports what IsStablePrefix(a, b)
// does. Shapes of different layouts diverge at field "layout", before
// any message.
func CompareShapes(previous, next Shape) Report {
	outside := func(field string, cause Cause) Report {
		return Report{Divergence: &Divergence{Index: -1, Field: field, Cause: cause}}
	}
	switch {
	case previous.Layout != next.Layout:
		return outside("layout", CauseChanged)
	case previous.Model != next.Model:
		return outside("model", CauseChanged)
	case previous.CacheKey != next.CacheKey:
		return outside("cache_key", CauseChanged)
	case previous.Instructions != next.Instructions:
		return outside("instructions", CauseChanged)
	}
	for i, t := range previous.Tools {
		if i >= len(next.Tools) {
			return outside(fmt.Sprintf("tools[%d]", i), CauseRemoved)
		}
		switch n := next.Tools[i]; {
		case t.Name != n.Name:
			return outside(fmt.Sprintf("tools[%d].name", i), CauseChanged)
		case t.Description != n.Description:
			return outside(fmt.Sprintf("tools[%d].description", i), CauseChanged)
		case t.Parameters != n.Parameters:
			return outside(fmt.Sprintf("tools[%d].parameters", i), CauseChanged)
		}
	}
	if len(next.Tools) > len(previous.Tools) {
		return outside(fmt.Sprintf("tools[%d]", len(previous.Tools)), CauseChanged)
	}
	msgs, ignored := previous.Messages, false
	if n := len(msgs); n > 0 && isTransient(msgs[n-1].ID) {
		msgs, ignored = msgs[:n-1], true
	}
	for i, m := range msgs {
		d := &Divergence{Index: i, MessageID: m.ID, Field: fmt.Sprintf("messages[%d]", i), Cause: CauseChanged}
		if i >= len(next.Messages) {
			d.Cause = CauseRemoved
			return Report{Common: i, IgnoredTail: ignored, Divergence: d}
		}
		if f, differ := diffShape(m, next.Messages[i]); differ {
			if f != "" {
				d.Field += "." + f
			}
			return Report{Common: i, IgnoredTail: ignored, Divergence: d}
		}
	}
	return Report{Stable: true, Common: len(msgs), IgnoredTail: ignored}
}

// diffShape names the first differing value of two message shapes, as
// diffMessage does; "" with differ set when the position cannot be named
// (a malformed stored shape).
func diffShape(a, b MessageShape) (field string, differ bool) {
	if a.Role != b.Role {
		return "role", true
	}
	j := 0
	for j < len(a.Values) && j < len(b.Values) && a.Values[j] == b.Values[j] {
		j++
	}
	if j == len(a.Values) && j == len(b.Values) {
		return "", false
	}
	// Every count and flag before j is equal, so both sequences name
	// position j alike; the longer one names it when the other ended.
	for _, v := range [][]Digest{a.Values, b.Values} {
		if f := valueFields(v); j < len(f) {
			return f[j], true
		}
	}
	return "", true
}

// messageValues lists m's values in diffMessage's order: the parts (count,
// then kind, text and image of each), the assistant turn (presence, text,
// thinking, replay state, call count, then id, name and arguments of each
// call) and the tool result (presence, call id, name, content, error flag,
// image).
func messageValues(m llm.Message) []Digest {
	v := make([]Digest, 0, 3+3*len(m.Parts))
	v = append(v, number(len(m.Parts)))
	for _, p := range m.Parts {
		v = append(v, number(int(p.Kind)), digestString(p.Text), imageDigest(p.Image))
	}
	if a := m.Assistant; a == nil {
		v = append(v, number(0))
	} else {
		v = append(v, number(1), digestString(a.Text), digestString(a.Thinking), replayDigest(a.Replay), number(len(a.Calls)))
		for _, c := range a.Calls {
			v = append(v, digestString(c.CallID), digestString(c.Name), digest(c.Arguments))
		}
	}
	if t := m.ToolResult; t == nil {
		v = append(v, number(0))
	} else {
		errFlag := 0
		if t.IsError {
			errFlag = 1
		}
		v = append(v, number(1), digestString(t.CallID), digestString(t.Name), digestString(t.Content), number(errFlag), imageDigest(t.Image))
	}
	return v
}

// valueFields names each position of values, reading the counts and flags
// messageValues wrote; it stops early on a malformed sequence.
func valueFields(values []Digest) []string {
	out := make([]string, 0, len(values))
	// take names the next n positions, or reports that too few are left.
	take := func(names ...string) bool {
		if len(out)+len(names) > len(values) {
			return false
		}
		out = append(out, names...)
		return true
	}
	flag := func() (uint64, bool) {
		if len(out) >= len(values) {
			return 0, false
		}
		return binary.BigEndian.Uint64(values[len(out)][:]), true
	}
	parts, ok := flag()
	if !ok || !take("parts") || parts > uint64(len(values)) {
		return out
	}
	for i := range int(parts) {
		if !take(fmt.Sprintf("parts[%d].kind", i), fmt.Sprintf("parts[%d].text", i), fmt.Sprintf("parts[%d].image", i)) {
			return out
		}
	}
	present, ok := flag()
	if !ok || !take("assistant") {
		return out
	}
	if present == 1 {
		if !take("assistant.text", "assistant.thinking", "assistant.replay") {
			return out
		}
		calls, ok := flag()
		if !ok || !take("assistant.calls") || calls > uint64(len(values)) {
			return out
		}
		for i := range int(calls) {
			if !take(fmt.Sprintf("assistant.calls[%d].call_id", i), fmt.Sprintf("assistant.calls[%d].name", i),
				fmt.Sprintf("assistant.calls[%d].arguments", i)) {
				return out
			}
		}
	}
	present, ok = flag()
	if !ok || !take("tool_result") {
		return out
	}
	if present == 1 {
		take("tool_result.call_id", "tool_result.name", "tool_result.content", "tool_result.is_error", "tool_result.image")
	}
	return out
}

func contentBytes(m llm.Message) int64 {
	n := 0
	for _, p := range m.Parts {
		n += len(p.Text) + imageBytes(p.Image)
	}
	if a := m.Assistant; a != nil {
		n += len(a.Text) + len(a.Thinking)
		if a.Replay != nil {
			n += len(a.Replay.Value)
		}
		for _, c := range a.Calls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	if t := m.ToolResult; t != nil {
		n += len(t.Content) + imageBytes(t.Image)
	}
	return int64(n)
}

func imageBytes(img *llm.Image) int {
	if img == nil {
		return 0
	}
	return len(img.Data)
}

// number stores a count or a flag as itself.
func number(n int) Digest {
	var d Digest
	binary.BigEndian.PutUint64(d[:], uint64(n))
	return d
}

func digestString(s string) Digest { return digest([]byte(s)) }

// digest hashes values, each prefixed by its length so that no two
// different lists of values hash alike by concatenation.
func digest(values ...[]byte) Digest {
	h := sha256.New()
	var n [8]byte
	for _, v := range values {
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write(v)
	}
	var d Digest
	copy(d[:], h.Sum(nil))
	if d == (Digest{}) {
		d[7] = 1 // the zero Digest means absent
	}
	return d
}

func imageDigest(img *llm.Image) Digest {
	if img == nil {
		return Digest{}
	}
	return digest([]byte(img.MIMEType), []byte(img.BlobID), []byte(img.Path), img.Data)
}

func replayDigest(r *llm.ReplayState) Digest {
	if r == nil {
		return Digest{}
	}
	return digest([]byte(r.Kind), r.Value)
}
