package llm

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// EstimateRequestByJSON and EstimateMessagesByJSON are the estimate's
// definition, which jsonCount counts without encoding: the JSON an
// Encoder writes (image bytes dropped), each ASCII character 0.273
// tokens and each other 0.55, rounded up.
func EstimateRequestByJSON(r Request) int64 {
	return estimateByJSON(struct {
		Instructions string
		Tools        []Tool
		Messages     []Message
	}{r.Instructions, r.Tools, withoutImageData(r.Messages)})
}

func EstimateMessagesByJSON(msgs []Message) int64 { return estimateByJSON(withoutImageData(msgs)) }

func estimateByJSON(v any) int64 {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var ascii, other int64
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
		b = b[size:]
	}
	return (ascii*asciiMilliTokens + other*nonASCIIMilliTokens + 999) / 1000
}

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
