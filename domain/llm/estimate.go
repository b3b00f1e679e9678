package llm

import (
	"encoding/base64"
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
	// The JSON of struct{Instructions string; Tools []Tool; Messages []Message}.
	var c jsonCount
	c.object(len("Instructions"), len("Tools"), len("Messages"))
	c.str(r.Instructions)
	c.tools(r.Tools)
	c.messages(r.Messages)
	return c.tokens()
}

// EstimateMessages estimates the tokens of msgs alone, for example the
// messages added after a usage anchor.
func EstimateMessages(msgs []Message) int64 {
	var c jsonCount
	c.messages(msgs)
	return c.tokens()
}

// jsonCount counts the ASCII characters and the other characters of the
// JSON encoding/json's Encoder (HTML escaping on) writes for the request
// types, without writing it: a workspace's first request is about 100 KB
// of JSON, which a reflective encoding took a few percent of a short
// turn's CPU to produce only to be counted. Image bytes count as null (an
// image counts by its metadata). The estimate specs hold it to the
// encoder's output, character for character.
type jsonCount struct{ ascii, other int64 }

func (c *jsonCount) tokens() int64 {
	return (c.ascii*asciiMilliTokens + c.other*nonASCIIMilliTokens + 999) / 1000
}

// object counts the braces, commas, quoted names and colons of an object
// with fields of these name lengths; the values are counted apart.
func (c *jsonCount) object(names ...int) {
	c.ascii += 2 + int64(len(names)-1)
	for _, n := range names {
		c.ascii += int64(n) + 3
	}
}

// list counts the brackets and commas of a list of n values, or null.
func (c *jsonCount) list(n int, isNil bool) {
	if isNil {
		c.ascii += 4
		return
	}
	c.ascii += 2
	if n > 0 {
		c.ascii += int64(n - 1)
	}
}

func (c *jsonCount) null() { c.ascii += 4 }

func (c *jsonCount) boolean(v bool) {
	if v {
		c.ascii += 4
	} else {
		c.ascii += 5
	}
}

func (c *jsonCount) integer(v int64) {
	if v < 0 {
		c.ascii++
		if v == -v { // the smallest int64 has no positive counterpart
			c.ascii += 19
			return
		}
		v = -v
	}
	c.ascii++
	for v >= 10 {
		c.ascii++
		v /= 10
	}
}

// bytes counts a byte slice: base64 in quotes, or null when nil.
func (c *jsonCount) bytes(b []byte) {
	if b == nil {
		c.null()
		return
	}
	c.ascii += 2 + int64(base64.StdEncoding.EncodedLen(len(b)))
}

// str counts a quoted string as encoding/json escapes it.
func (c *jsonCount) str(s string) {
	n := int64(2)
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			n += int64(asciiWidth[b])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6 // \ufffd, \u2028, \u2029
		default:
			c.other++
		}
	}
	c.ascii += n
}

// asciiWidth is how many characters encoding/json writes for an ASCII
// byte in a string (HTML escaping on): 1, 2 for \", \\, \b, \f, \n, \r
// and \t, 6 for the other control characters and <, > and & (\u00XX).
var asciiWidth = func() (w [utf8.RuneSelf]uint8) {
	for b := range w {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			w[b] = 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			w[b] = 6
		default:
			w[b] = 1
		}
	}
	return w
}()

func (c *jsonCount) tools(ts []Tool) {
	c.list(len(ts), ts == nil)
	for _, t := range ts {
		c.object(len("Name"), len("Description"), len("Parameters"))
		c.str(t.Name)
		c.str(t.Description)
		c.bytes(t.Parameters)
	}
}

// messages counts a list of messages; none is [], never null (the
// estimate encoded a copy of the list).
func (c *jsonCount) messages(ms []Message) {
	c.list(len(ms), false)
	for i := range ms {
		c.message(&ms[i])
	}
}

func (c *jsonCount) message(m *Message) {
	c.object(len("ID"), len("Role"), len("Parts"), len("Assistant"), len("ToolResult"))
	c.str(m.ID)
	c.integer(int64(m.Role))
	c.list(len(m.Parts), m.Parts == nil)
	for _, p := range m.Parts {
		c.object(len("Kind"), len("Text"), len("Image"))
		c.integer(int64(p.Kind))
		c.str(p.Text)
		c.image(p.Image)
	}
	if a := m.Assistant; a != nil {
		c.object(len("Text"), len("Thinking"), len("Replay"), len("Calls"))
		c.str(a.Text)
		c.str(a.Thinking)
		if rs := a.Replay; rs != nil {
			c.object(len("Kind"), len("Value"))
			c.str(string(rs.Kind))
			c.bytes(rs.Value)
		} else {
			c.null()
		}
		c.list(len(a.Calls), a.Calls == nil)
		for _, tc := range a.Calls {
			c.object(len("Index"), len("CallID"), len("Name"), len("Arguments"), len("ArgumentError"))
			c.integer(int64(tc.Index))
			c.str(tc.CallID)
			c.str(tc.Name)
			c.bytes(tc.Arguments)
			c.str(tc.ArgumentError)
		}
	} else {
		c.null()
	}
	if tr := m.ToolResult; tr != nil {
		c.object(len("CallID"), len("Name"), len("Content"), len("IsError"), len("Image"))
		c.str(tr.CallID)
		c.str(tr.Name)
		c.str(tr.Content)
		c.boolean(tr.IsError)
		c.image(tr.Image)
	} else {
		c.null()
	}
}

// image counts an image's metadata; its bytes count as null.
func (c *jsonCount) image(img *Image) {
	if img == nil {
		c.null()
		return
	}
	c.object(len("MIMEType"), len("Data"), len("BlobID"), len("Path"))
	c.str(img.MIMEType)
	c.null()
	c.str(img.BlobID)
	c.str(img.Path)
}
