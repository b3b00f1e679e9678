package llm

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// Token estimation (before a call) is a heuristic: serialise the request
// to JSON and count each ASCII character as 0.273
// tokens and each other character as 0.55, rounding up. It errs on the high
// side for code and prose alike; providers stay the authority.
const (
	asciiMilliTokens    = 273
	nonASCIIMilliTokens = 550
)

// EstimateRequest estimates the input tokens of r: instructions, tools and
// messages. Image bytes are not counted; an image counts by its metadata.
func EstimateRequest(r Request) int64 {
	return estimateJSON(struct {
		Instructions string
		Tools        []Tool
		Messages     []Message
	}{r.Instructions, r.Tools, withoutImageData(r.Messages)})
}

// EstimateMessages estimates the tokens of msgs alone, for example the
// messages added after a usage anchor.
func EstimateMessages(msgs []Message) int64 { return estimateJSON(withoutImageData(msgs)) }

func estimateJSON(v any) int64 {
	// The encoder reuses its buffers across calls (Marshal would allocate
	// the whole serialisation, 100 KB for a workspace's first turn, on
	// every estimate); the count sees the bytes as they are written.
	var c runeCounter
	if err := json.NewEncoder(&c).Encode(v); err != nil {
		// Request values hold only strings, numbers and byte slices.
		panic("llm: estimate tokens: " + err.Error())
	}
	c.ascii-- // Encode's trailing newline is not part of the JSON
	return (c.milli() + 999) / 1000
}

// runeCounter counts the ASCII characters and the other runes written to
// it. The JSON encoder writes its output in one piece and only valid UTF-8
// (invalid bytes become U+FFFD), so no rune is split across writes.
type runeCounter struct{ ascii, other int64 }

func (c *runeCounter) Write(p []byte) (int, error) {
	// ASCII, nearly all of a request, is counted a byte at a time without
	// decoding; anything else one rune (or invalid byte) at a time.
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			c.ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRune(p[i:])
		c.other++
		i += size
	}
	return len(p), nil
}

func (c *runeCounter) milli() int64 {
	return c.ascii*asciiMilliTokens + c.other*nonASCIIMilliTokens
}

// withoutImageData returns a shallow copy of msgs with image bytes dropped;
// the caller's messages are not modified.
func withoutImageData(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if m.ToolResult != nil && m.ToolResult.Image != nil {
			r := *m.ToolResult
			r.Image = imageMetadata(r.Image)
			out[i].ToolResult = &r
		}
		if slices.ContainsFunc(m.Parts, func(p Part) bool { return p.Image != nil }) {
			parts := slices.Clone(m.Parts)
			for j := range parts {
				parts[j].Image = imageMetadata(parts[j].Image)
			}
			out[i].Parts = parts
		}
	}
	return out
}

func imageMetadata(img *Image) *Image {
	if img == nil {
		return nil
	}
	c := *img
	c.Data = nil
	return &c
}
