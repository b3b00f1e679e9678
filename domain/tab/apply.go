package tab

import "strings"

// Edit is one line edit of a prediction: Range's lines are replaced with
// Text split on "\n".
type Edit struct {
	Range Range
	Text  string
}

// Apply returns lines with r replaced by text split on "\n"; lines is not
// modified. Edits of one prediction apply in stream order, each to the
// file as the earlier ones left it.
//
// An edit never needs an empty range, so the client's one edit shape
// covers every change:
//   - insertion of lines after line k: range [k,k], text line k, "\n" and
//     the new lines (before line 1: range [1,1], the new lines, "\n" and
//     line 1);
//   - deletion of lines s..e: range [s-1,e] with line s-1's text (for s=1:
//     range [1,e+1] with line e+1's text); deleting every line leaves one
//     empty line, the empty file.
//
// A range past the end of lines is clamped to it: StartLine n+1 appends.
func Apply(lines []string, r Range, text string) []string {
	s, e := max(r.StartLine, 1), min(r.EndLine, len(lines))
	s = min(s, len(lines)+1)
	e = max(e, s-1)
	repl := strings.Split(text, "\n")
	out := make([]string, 0, len(lines)-(e-s+1)+len(repl))
	out = append(out, lines[:s-1]...)
	out = append(out, repl...)
	return append(out, lines[e:]...)
}

// EditEvents are the events that stream e whole.
func EditEvents(e Edit) []Event {
	return []Event{{Kind: EventBeginEdit, Range: e.Range}, {Kind: EventText, Text: e.Text}, {Kind: EventDoneEdit}}
}

// Decoder turns a model's answer, fed as text deltas, into the events of
// a prediction as soon as they are usable. It is not safe for concurrent
// use.
type Decoder interface {
	// Feed takes the next text delta and returns the events it made usable.
	Feed(delta string) []Event
	// Finish ends the answer; truncated says the model stopped at its
	// output limit. It returns the remaining events.
	Finish(truncated bool) []Event
	// Enough reports that the decoder needs no more text: the caller may
	// stop the model and Finish.
	Enough() bool
	// Edits are the edits offered so far, whole.
	Edits() []Edit
}

// sameEdit reports whether e is among rejected.
func sameEdit(rejected []Edit, e Edit) bool {
	for _, r := range rejected {
		if r == e {
			return true
		}
	}
	return false
}

// whitespaceOnly reports whether a and b differ only in whitespace.
func whitespaceOnly(a, b string) bool {
	return strings.Join(strings.Fields(a), "") == strings.Join(strings.Fields(b), "")
}

// ApplyEvents applies the edits of a prediction's events to lines in
// stream order, as a client does; jumps and unfinished edits change
// nothing.
func ApplyEvents(lines []string, evs []Event) []string {
	var r Range
	var text strings.Builder
	open := false
	for _, ev := range evs {
		switch ev.Kind {
		case EventBeginEdit:
			r, open = ev.Range, true
			text.Reset()
		case EventText:
			text.WriteString(ev.Text)
		case EventDoneEdit:
			if open {
				lines = Apply(lines, r, text.String())
			}
			open = false
		case EventJump:
		}
	}
	return lines
}
