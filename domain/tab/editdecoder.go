package tab

import (
	"slices"
	"strings"
)

// DiffOp is one step of a line diff: a[A1:A2] becomes b[B1:B2], equal
// lines when Equal.
type DiffOp struct {
	Equal          bool
	A1, A2, B1, B2 int
}

// LineDiff diffs two line lists into ops covering both in order. The
// algorithm is a library's (app/tab passes one); the rules of what
// becomes an edit are here.
type LineDiff func(a, b []string) []DiffOp

// EditDecoder turns a chat model's rewritten region into line edits by
// diffing it against the region, so the model never counts lines. A hunk
// is sent once it is closed: two unchanged lines matched after it, or the
// reply ended. Changed runs separated by one unchanged line are one edit.
// Edits apply in order, each to the file the earlier ones left, so their
// line numbers account for the earlier edits' added or removed lines.
//
// A reply cut at the output limit sends only closed hunks: its missing
// tail never reads as the region's lines deleted. Code fences and the
// markers are stripped; a reply without markers is taken whole at its
// end. A quoted next line (NextMarker) becomes a jump to the nearest line
// of the file outside the region with that text.
type EditDecoder struct {
	p    EditPrompt
	diff LineDiff
	o    DecodeOptions

	partial  string
	phase    replyPhase
	loose    []string // lines of a reply without a start marker
	fenced   bool     // an opening fence was skipped
	held     *string  // a fence line held back: a closing one is dropped
	reply    []string
	ci, cj   int // region and reply lines already settled
	delta    int // lines the edits sent so far added
	edits    []Edit
	next     string
	runaway  bool
	finished bool
}

type replyPhase uint8

const (
	phaseBefore replyPhase = iota
	phaseRegion
	phaseAfter
)

var _ Decoder = (*EditDecoder)(nil)

// NewEditDecoder returns a decoder of replies to p, diffing with diff.
func NewEditDecoder(p EditPrompt, diff LineDiff, o DecodeOptions) *EditDecoder {
	return &EditDecoder{p: p, diff: diff, o: o}
}

// Feed implements Decoder.
func (d *EditDecoder) Feed(delta string) []Event {
	if d.finished || d.Enough() {
		return nil
	}
	d.partial += delta
	var evs []Event
	for {
		i := strings.IndexByte(d.partial, '\n')
		if i < 0 || d.Enough() {
			return evs
		}
		line := strings.TrimSuffix(d.partial[:i], "\r")
		d.partial = d.partial[i+1:]
		evs = append(evs, d.line(line)...)
	}
}

// line takes one complete line of the reply.
func (d *EditDecoder) line(l string) []Event {
	t := strings.TrimSpace(l)
	switch d.phase {
	case phaseBefore:
		if _, rest, ok := strings.Cut(l, RegionStart); ok {
			d.phase = phaseRegion
			if strings.TrimSpace(rest) != "" {
				return d.regionLine(rest)
			}
			return nil
		}
		d.loose = append(d.loose, l)
	case phaseRegion:
		if head, _, ok := strings.Cut(l, RegionEnd); ok {
			var evs []Event
			if strings.TrimSpace(head) != "" {
				evs = d.regionLine(head)
			}
			d.held, d.phase = nil, phaseAfter
			return append(evs, d.settle(true)...)
		}
		if strings.HasPrefix(t, "```") {
			if len(d.reply) == 0 && !d.fenced {
				d.fenced = true
				return nil
			}
			if d.fenced && d.held == nil {
				d.held = &l
				return nil
			}
		}
		return d.regionLine(l)
	case phaseAfter:
		if _, rest, ok := strings.Cut(l, NextMarker); ok && d.next == "" {
			d.next = strings.TrimSpace(rest)
		}
	}
	return nil
}

// regionLine adds a line of the rewritten region and sends the hunks it
// closed.
func (d *EditDecoder) regionLine(l string) []Event {
	if d.held != nil {
		d.reply = append(d.reply, *d.held)
		d.held = nil
	}
	d.reply = append(d.reply, strings.ReplaceAll(l, CursorMarker, ""))
	if len(d.reply) > 4*len(d.p.Region)+32 {
		d.runaway = true
		return nil
	}
	return d.settle(false)
}

// hunk is a changed run: region[a1:a2] becomes reply[b1:b2].
type hunk struct{ a1, a2, b1, b2 int }

// settle diffs the unsettled region against the unsettled reply and sends
// every hunk closed by an anchor (two or more equal lines), or every hunk
// when final.
func (d *EditDecoder) settle(final bool) []Event {
	if len(d.reply) == 0 {
		return nil // an empty reply is no answer, not the region deleted
	}
	ops := d.diff(d.p.Region[d.ci:], d.reply[d.cj:])
	last := len(ops) - 1
	if !final {
		for last >= 0 && !(ops[last].Equal && ops[last].A2-ops[last].A1 >= 2) {
			last--
		}
	}
	if last < 0 {
		return nil
	}
	var evs []Event
	var h *hunk
	for k, op := range ops[:last+1] {
		if op.Equal {
			if h != nil && (op.A2-op.A1 >= 2 || k == last) {
				evs = append(evs, d.send(*h, final)...)
				h = nil
			}
			continue
		}
		if h == nil {
			h = &hunk{a1: d.ci + op.A1, b1: d.cj + op.B1}
		}
		h.a2, h.b2 = d.ci+op.A2, d.cj+op.B2
	}
	if h != nil {
		evs = append(evs, d.send(*h, final)...)
	}
	d.ci, d.cj = d.ci+ops[last].A2, d.cj+ops[last].B2
	return evs
}

// send turns a closed hunk into an edit unless it is suppressed.
func (d *EditDecoder) send(h hunk, final bool) []Event {
	region := d.p.Region
	repl := d.reply[h.b1:h.b2]
	old := region[h.a1:h.a2]
	if final && h.a2 == len(region) {
		repl = trimRepeat(repl, d.p.Following)
		// A model drops the region's trailing blank lines more often than
		// it means to delete them: keep them.
		if k := blankTail(old) - blankTail(repl); k > 0 {
			repl = append(slices.Clip(repl), old[len(old)-k:]...)
		}
	}
	if slices.Equal(old, repl) || whitespaceOnly(strings.Join(old, "\n"), strings.Join(repl, "\n")) {
		return nil
	}
	at := func(i int) int { return d.p.Start + i + d.delta }
	var e Edit
	switch {
	case len(repl) > 0 && h.a1 < h.a2:
		e = Edit{Range{at(h.a1), at(h.a2 - 1)}, strings.Join(repl, "\n")}
	case len(repl) > 0 && h.a1 > 0: // insertion after a kept line
		e = Edit{Range{at(h.a1 - 1), at(h.a1 - 1)}, region[h.a1-1] + "\n" + strings.Join(repl, "\n")}
	case len(repl) > 0: // insertion before the region's first line
		e = Edit{Range{at(0), at(0)}, strings.Join(repl, "\n") + "\n" + region[0]}
	case h.a1 > 0: // deletion after a kept line
		e = Edit{Range{at(h.a1 - 1), at(h.a2 - 1)}, region[h.a1-1]}
	case h.a2 < len(region): // deletion up to a kept line
		e = Edit{Range{at(h.a1), at(h.a2)}, region[h.a2]}
	default: // the whole region deleted: one empty line is left
		e = Edit{Range{at(0), at(len(region) - 1)}, ""}
	}
	if sameEdit(d.o.Rejected, e) {
		return nil
	}
	d.delta += strings.Count(e.Text, "\n") + 1 - (e.Range.EndLine - e.Range.StartLine + 1)
	d.edits = append(d.edits, e)
	return EditEvents(e)
}

// trimRepeat drops the tail of repl that repeats the start of following:
// the model wrote the lines after the region again.
func trimRepeat(repl, following []string) []string {
	for t := min(len(repl), len(following)); t > 0; t-- {
		if slices.Equal(repl[len(repl)-t:], following[:t]) {
			return repl[:len(repl)-t]
		}
	}
	return repl
}

// blankTail is how many lines at the end of lines are blank.
func blankTail(lines []string) int {
	n := 0
	for n < len(lines) && strings.TrimSpace(lines[len(lines)-1-n]) == "" {
		n++
	}
	return n
}

// Finish implements Decoder.
func (d *EditDecoder) Finish(truncated bool) []Event {
	if d.finished {
		return nil
	}
	truncated = truncated || d.runaway
	var evs []Event
	if !truncated && d.partial != "" {
		evs = d.line(strings.TrimSuffix(d.partial, "\r"))
	}
	d.partial = ""
	switch d.phase {
	case phaseBefore:
		if !truncated {
			d.reply = unfence(d.loose)
			evs = append(evs, d.settle(true)...)
		}
	case phaseRegion:
		d.held = nil
		evs = append(evs, d.settle(!truncated)...)
	case phaseAfter:
	}
	d.finished = true
	if j := d.jump(); j != nil && d.phase == phaseAfter {
		evs = append(evs, Event{Kind: EventJump, Jump: j})
	}
	return evs
}

// unfence strips the code fence lines around a reply without markers.
func unfence(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "```") {
		lines = lines[1:]
		if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "```") }); i >= 0 {
			lines = lines[:i]
		}
	}
	return lines
}

// jump locates the quoted next line: the nearest line outside the region
// whose text, spaces trimmed, is the quote's.
func (d *EditDecoder) jump() *Jump {
	if d.next == "" {
		return nil
	}
	first, last := d.p.Start, d.p.Start+len(d.p.Region)-1
	best, bestText, dist := 0, "", 0
	for n, from := 1, 0; ; n++ {
		l, next, ok := nextLine(d.p.contents, from)
		if !ok || (best > 0 && n > last && n-last > dist) {
			break
		}
		from = next
		if (n >= first && n <= last) || strings.TrimSpace(l) != d.next {
			continue
		}
		dn := first - n
		if n > last {
			dn = n - last
		}
		if best == 0 || dn < dist {
			best, bestText, dist = n, l, dn
		}
	}
	if best == 0 {
		return nil
	}
	if best > last {
		best += d.delta
	}
	return &Jump{Path: d.p.Path, Line: best, Expected: bestText}
}

// Enough implements Decoder: the reply's region and next line arrived, or
// the reply ran far past the region's length.
func (d *EditDecoder) Enough() bool { return d.runaway || (d.phase == phaseAfter && d.next != "") }

// Edits implements Decoder.
func (d *EditDecoder) Edits() []Edit { return d.edits }
