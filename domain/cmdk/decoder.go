package cmdk

import "strings"

// EditDecoder turns a model's streamed reply into the replacement lines.
// It sends each line once it is complete (ended by "\n"), drops a code
// fence or <selection> tag wrapped around the reply, ends the answer at
// the closing one, and holds blank lines back until a line follows them,
// so that trailing blank lines the model adds do not enter the file
// (unless the selection itself ended in one). It is not safe for
// concurrent use.
type EditDecoder struct {
	keepBlankTail bool

	partial string
	begun   bool     // a non-blank line was seen
	closer  string   // the line that ends a wrapped reply; "" when unwrapped
	blanks  []string // blank lines held back
	done    bool
}

// NewEditDecoder returns the decoder of a reply replacing selection.
func NewEditDecoder(selection []string) *EditDecoder {
	n := len(selection)
	return &EditDecoder{keepBlankTail: n > 0 && strings.TrimSpace(selection[n-1]) == ""}
}

// Enough reports that the reply's answer has ended (its closing fence
// came): the rest of the stream is not read.
func (d *EditDecoder) Enough() bool { return d.done }

// Feed takes the next piece of the reply and returns the text now ready,
// whole lines each ended by "\n".
func (d *EditDecoder) Feed(delta string) string {
	var out strings.Builder
	d.partial += delta
	for !d.done {
		i := strings.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSuffix(d.partial[:i], "\r")
		d.partial = d.partial[i+1:]
		d.line(&out, line)
	}
	return out.String()
}

// Finish returns what is left once the reply ended: its last line when it
// had no line break, and the held blank lines when the selection ended in
// a blank line too.
func (d *EditDecoder) Finish() string {
	var out strings.Builder
	if !d.done && d.partial != "" {
		d.line(&out, strings.TrimSuffix(d.partial, "\r"))
	}
	d.partial = ""
	if d.keepBlankTail && !d.done {
		for _, b := range d.blanks {
			out.WriteString(b + "\n")
		}
	}
	d.blanks, d.done = nil, true
	return out.String()
}

func (d *EditDecoder) line(out *strings.Builder, line string) {
	trimmed := strings.TrimSpace(line)
	if !d.begun {
		if trimmed == "" {
			d.blanks = append(d.blanks, line)
			return
		}
		d.begun = true
		switch {
		case strings.HasPrefix(trimmed, "```"):
			d.closer, d.blanks = "```", nil
			return
		case trimmed == "<selection>":
			d.closer, d.blanks = "</selection>", nil
			return
		}
	}
	if d.closer != "" && trimmed == d.closer {
		d.done = true
		return
	}
	if trimmed == "" {
		d.blanks = append(d.blanks, line)
		return
	}
	for _, b := range d.blanks {
		out.WriteString(b + "\n")
	}
	d.blanks = nil
	out.WriteString(line + "\n")
}
