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
	body, err := json.Marshal(v)
	if err != nil {
		// Request values hold only strings, numbers and byte slices.
		panic("llm: estimate tokens: " + err.Error())
	}
	var milli int64
	for len(body) > 0 {
		r, size := utf8.DecodeRune(body)
		if r < utf8.RuneSelf {
			milli += asciiMilliTokens
		} else {
			milli += nonASCIIMilliTokens
		}
		body = body[size:]
	}
	return (milli + 999) / 1000
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
