package tab

import (
	"hash/maphash"
	"strings"
)

// Offer is what the typing-through rule keeps of a suggestion that
// inserts text at the cursor: where the cursor was, digests of the file
// on each side of it, and the inserted text. It holds no file contents,
// so a cache of offers is bounded by the suggestions' size.
type Offer struct {
	Path string
	// Inserted is what the suggestion inserts at the cursor.
	Inserted string

	beforeLen, afterLen int
	beforeSum, afterSum uint64
}

// seed keys the digests of one process; offers never leave it.
var seed = maphash.MakeSeed()

// NewOffer returns the offer of edits made for in; ok is false unless the
// edits are one edit that only inserts text at the cursor.
func NewOffer(in Input, edits []Edit) (Offer, bool) {
	if len(edits) != 1 {
		return Offer{}, false
	}
	sp, ok := locate(in)
	e := edits[0]
	if !ok || e.Range.StartLine > sp.line+1 || e.Range.EndLine < sp.line+1 || e.Range.StartLine < 1 {
		return Offer{}, false
	}
	// The old text of the edit's lines, and the cursor's offset in it.
	old, co, ok := editedLines(in.Contents, sp, e.Range)
	if !ok || len(e.Text) <= len(old) || !strings.HasPrefix(e.Text, old[:co]) || !strings.HasSuffix(e.Text, old[co:]) {
		return Offer{}, false
	}
	ins := e.Text[co : len(e.Text)-(len(old)-co)]
	return newOffer(in, sp.offset, ins), true
}

func newOffer(in Input, offset int, ins string) Offer {
	c := in.Contents
	return Offer{Path: in.Path, Inserted: ins, beforeLen: offset, afterLen: len(c) - offset,
		beforeSum: maphash.String(seed, c[:offset]), afterSum: maphash.String(seed, c[offset:])}
}

// editedLines joins the lines of r with "\n" (without "\r") and gives the
// cursor's byte offset in the result.
func editedLines(c string, sp spot, r Range) (string, int, bool) {
	// Walk back from the cursor line to r's first line, then forward to
	// its last.
	start := sp.lineStart
	for n := sp.line + 1; n > r.StartLine; n-- {
		_, s, ok := prevLine(c, start)
		if !ok {
			return "", 0, false
		}
		start = s
	}
	var b strings.Builder
	co := -1
	from := start
	for n := r.StartLine; n <= r.EndLine; n++ {
		l, next, ok := nextLine(c, from)
		if !ok {
			return "", 0, false
		}
		if n > r.StartLine {
			b.WriteByte('\n')
		}
		if n == sp.line+1 {
			co = b.Len() + sp.offset - sp.lineStart
		}
		b.WriteString(l)
		from = next
	}
	return b.String(), co, co >= 0
}

// Continue applies the typing-through rule: next is the user typing the
// start of o's insertion when the file before its cursor is the file
// before o's cursor plus the typed characters, the file after the cursor
// is unchanged, and the typed characters are a proper prefix of the
// insertion. It then returns the rest of the suggestion, as one edit of
// next's cursor line, and the offer of that rest.
func (o Offer) Continue(next Input) (Edit, Offer, bool) {
	if next.Path != o.Path {
		return Edit{}, Offer{}, false
	}
	sp, ok := locate(next)
	c := next.Contents
	if !ok || sp.offset <= o.beforeLen || len(c)-sp.offset != o.afterLen {
		return Edit{}, Offer{}, false
	}
	typed := strings.ReplaceAll(c[o.beforeLen:sp.offset], "\r\n", "\n")
	if len(typed) >= len(o.Inserted) || !strings.HasPrefix(o.Inserted, typed) {
		return Edit{}, Offer{}, false
	}
	rest := o.Inserted[len(typed):]
	if strings.TrimSpace(rest) == "" ||
		maphash.String(seed, c[sp.offset:]) != o.afterSum || maphash.String(seed, c[:o.beforeLen]) != o.beforeSum {
		return Edit{}, Offer{}, false
	}
	e := Edit{Range: Range{StartLine: sp.line + 1, EndLine: sp.line + 1}, Text: sp.before(c) + rest + sp.after(c)}
	return e, newOffer(next, sp.offset, rest), true
}

// Size is the bytes o holds, for bounding a cache of offers.
func (o Offer) Size() int { return len(o.Path) + len(o.Inserted) + 48 }
