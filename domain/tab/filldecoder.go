package tab

import "strings"

// DecodeOptions are what a decoder suppresses and where it stops.
type DecodeOptions struct {
	// Rejected are edits the user just rejected in this file: an identical
	// edit is not offered again.
	Rejected []Edit
	// MaxLines caps the lines one fill-in suggestion adds; 0 means
	// DefaultMaxLines.
	MaxLines int
}

// DefaultMaxLines is how many lines a fill-in suggestion may add: more is
// rarely accepted and only delays the answer.
const DefaultMaxLines = 16

// FillDecoder turns a fill-in model's completion into one edit of the
// cursor line: its text is the line before the cursor, the completion and
// the line after the cursor. The edit begins at the first token that is
// not whitespace; text that may turn out to repeat the lines after the
// cursor (the model writing the suffix again) or to end in line breaks is
// held back until it proves otherwise, and dropped at the end if it did.
type FillDecoder struct {
	p        FillPrompt
	o        DecodeOptions
	text     string // the completion so far, capped at MaxLines line breaks
	emitted  int    // bytes of text already sent
	begun    bool
	enough   bool
	finished bool
	edit     *Edit
}

var _ Decoder = (*FillDecoder)(nil)

// NewFillDecoder returns a decoder of completions of p.
func NewFillDecoder(p FillPrompt, o DecodeOptions) *FillDecoder {
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	return &FillDecoder{p: p, o: o}
}

func (d *FillDecoder) rng() Range { return Range{StartLine: d.p.Line, EndLine: d.p.Line} }

// Feed implements Decoder.
func (d *FillDecoder) Feed(delta string) []Event {
	if d.enough || d.finished || delta == "" {
		return nil
	}
	d.text += delta
	if n := nthIndex(d.text, '\n', d.o.MaxLines); n >= 0 {
		d.text, d.enough = d.text[:n], true
	}
	return d.release(d.hold())
}

// hold is how much of the completion may be sent now: none while it is
// only whitespace, and not trailing whitespace or a tail that starts a
// line and may be the model repeating the lines after the cursor.
func (d *FillDecoder) hold() int {
	n := len(strings.TrimRight(d.text, " \t\r\n"))
	if k := d.repeatStart(false); k >= 0 && k < n {
		return k
	}
	return n
}

// repeatStart is the offset of the earliest line break of the completion
// after which the rest repeats the start of Following (whole lines only
// when whole is set), or -1.
func (d *FillDecoder) repeatStart(whole bool) int {
	for i := strings.IndexByte(d.text, '\n'); i >= 0; {
		rest := d.text[i+1:]
		if strings.HasPrefix(d.p.Following, rest) && (!whole || wholeLines(d.p.Following, rest)) {
			return i
		}
		j := strings.IndexByte(rest, '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1
}

// wholeLines reports whether prefix, a prefix of text, ends at a line end.
func wholeLines(text, prefix string) bool {
	return len(prefix) == len(text) || text[len(prefix)] == '\n' || text[len(prefix)] == '\r'
}

// release sends the completion up to n, beginning the edit if it was not
// begun and its text so far is not the start of a rejected edit.
func (d *FillDecoder) release(n int) []Event {
	if n <= d.emitted {
		return nil
	}
	if !d.begun {
		head := d.p.Before + d.text[:n]
		for _, r := range d.o.Rejected {
			if r.Range == d.rng() && strings.HasPrefix(r.Text, head) {
				return nil
			}
		}
		d.begun, d.emitted = true, n
		return []Event{{Kind: EventBeginEdit, Range: d.rng()}, {Kind: EventText, Text: head}}
	}
	t := d.text[d.emitted:n]
	d.emitted = n
	return []Event{{Kind: EventText, Text: t}}
}

// Finish implements Decoder. A truncated completion keeps only what was
// sent; otherwise a repeated suffix and trailing line breaks are trimmed.
// A completion that is only whitespace, changes nothing or equals a
// rejected edit gives no edit.
func (d *FillDecoder) Finish(truncated bool) []Event {
	if d.finished {
		return nil
	}
	d.finished = true
	final := d.text
	if k := d.repeatStart(true); k >= 0 {
		final = final[:k]
	}
	if strings.TrimSpace(d.p.After) == "" {
		final = strings.TrimRight(final, " \t\r\n")
	}
	if truncated || len(final) < d.emitted {
		final = d.text[:d.emitted]
	}
	if strings.TrimSpace(final) == "" {
		return nil
	}
	e := Edit{Range: d.rng(), Text: d.p.Before + final + d.p.After}
	if !d.begun {
		if sameEdit(d.o.Rejected, e) {
			return nil
		}
		d.edit = &e
		return EditEvents(e)
	}
	d.edit = &e
	return []Event{{Kind: EventText, Text: final[d.emitted:] + d.p.After}, {Kind: EventDoneEdit}}
}

// Enough implements Decoder: the suggestion reached MaxLines.
func (d *FillDecoder) Enough() bool { return d.enough }

// Edits implements Decoder.
func (d *FillDecoder) Edits() []Edit {
	if d.edit == nil {
		return nil
	}
	return []Edit{*d.edit}
}

// nthIndex is the offset of the n-th b in s (n from 1), or -1.
func nthIndex(s string, b byte, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(s[off:], b)
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off - 1
}
