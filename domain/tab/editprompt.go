package tab

import (
	"fmt"
	"strings"
)

// The markers of the edit prompt. The model sees the region between
// RegionStart and RegionEnd with CursorMarker where the cursor is, and
// answers with the rewritten region between the same markers, optionally
// followed by a NextMarker line quoting the line it would edit next.
const (
	RegionStart  = "<|region|>"
	RegionEnd    = "<|end_region|>"
	CursorMarker = "<|cursor|>"
	NextMarker   = "<|next|>"
)

// EditBudget bounds an edit prompt.
type EditBudget struct {
	// Above and Below are the lines of the editable region on each side
	// of the cursor line; RegionBytes bounds the region.
	Above, Below, RegionBytes int
	// ContextLines and ContextBytes bound the unchanged context shown on
	// each side of the region.
	ContextLines, ContextBytes int
	// RecentBytes bounds the recent edits (the newest kept), OpenBytes
	// each open file's snippet, OpenFiles how many are shown, Lints how
	// many diagnostics.
	RecentBytes, OpenBytes, OpenFiles, Lints int
}

// DefaultEditBudget keeps an edit prompt near 8 KiB: a region of 8 lines
// above to 16 below the cursor, 20 lines of context on each side, the
// recent edits, three open files and eight diagnostics.
var DefaultEditBudget = EditBudget{Above: 8, Below: 16, RegionBytes: 4 << 10, ContextLines: 20,
	ContextBytes: 2 << 10, RecentBytes: 3 << 10, OpenBytes: 1 << 10, OpenFiles: 3, Lints: 8}

// EditPrompt is the prompt of a chat model asked for the next edit, and
// what its decoder needs to turn the rewritten region into line edits.
type EditPrompt struct {
	System, User string
	// Path is the file's path; a jump names it.
	Path string
	// Start is the region's first line, 1-indexed; Region its lines.
	Start  int
	Region []string
	// Following are lines after the region (the context shown after it):
	// a reply that repeats them repeats the suffix.
	Following []string
	// contents is the file, searched for the line a jump quotes.
	contents string
}

// editSystem tells the model the task and the answer's shape.
var editSystem = "You predict the next edit a programmer makes in their editor. You are shown the file around " +
	"the cursor, their recent edits, other open files and diagnostics. The editable region lies between " +
	RegionStart + " and " + RegionEnd + "; " + CursorMarker + " marks the cursor. Rewrite the region as the " +
	"programmer is about to change it: complete what they are typing, and carry on the edit their recent " +
	"changes suggest. Keep every line you do not change exactly as it is. Reply with the rewritten region " +
	"only, between " + RegionStart + " and " + RegionEnd + ", without the cursor marker and without " +
	"explanation. If nothing should change, reply with the region unchanged. If the programmer will likely " +
	"edit another line of this file next, add one last line: " + NextMarker + " followed by that line's " +
	"current text."

// NewEditPrompt builds the edit prompt of in within b; ok is false when
// the cursor is not in the file. It reads only the lines near the cursor.
func NewEditPrompt(in Input, b EditBudget) (EditPrompt, bool) {
	sp, ok := locate(in)
	if !ok {
		return EditPrompt{}, false
	}
	c := in.Contents
	cursorLine := sp.before(c) + CursorMarker + sp.after(c)
	budget := b.RegionBytes - len(cursorLine)
	above, top := linesAbove(c, sp.lineStart, b.Above, budget/2)
	budget -= size(above)
	_, next, _ := nextLine(c, sp.lineStart)
	below, next := linesBelow(c, next, b.Below, budget)
	before, _ := linesAbove(c, top, b.ContextLines, b.ContextBytes)
	after, _ := linesBelow(c, next, b.ContextLines, b.ContextBytes)
	p := EditPrompt{System: editSystem, Path: in.Path, Start: sp.line + 1 - len(above), contents: c, Following: after}
	p.Region = append(append(append(p.Region, above...), sp.before(c)+sp.after(c)), below...)

	var u strings.Builder
	fmt.Fprintf(&u, "File: %s", in.Path)
	if in.LanguageID != "" {
		fmt.Fprintf(&u, " (%s)", in.LanguageID)
	}
	u.WriteString("\n\n")
	writeRecent(&u, in.Recent, b.RecentBytes)
	writeOpen(&u, in.Open, b.OpenFiles, b.OpenBytes)
	writeLints(&u, in.Lints, p.Start-b.ContextLines, p.Start+len(p.Region)+b.ContextLines, b.Lints)
	u.WriteString("Current file:\n")
	writeLines(&u, before)
	u.WriteString(RegionStart + "\n")
	writeLines(&u, above)
	u.WriteString(cursorLine + "\n")
	writeLines(&u, below)
	u.WriteString(RegionEnd + "\n")
	writeLines(&u, after)
	u.WriteString("\nRewrite the region.\n")
	p.User = u.String()
	return p, true
}

// linesAbove returns up to n lines ending before byte start (a line
// start), oldest first, within max bytes, and the start of the first.
func linesAbove(c string, start, n, maxBytes int) ([]string, int) {
	var rev []string
	used := 0
	for len(rev) < n {
		l, s, ok := prevLine(c, start)
		if !ok || used+len(l)+1 > maxBytes {
			break
		}
		rev, start, used = append(rev, l), s, used+len(l)+1
	}
	out := make([]string, len(rev))
	for i, l := range rev {
		out[len(rev)-1-i] = l
	}
	return out, start
}

// linesBelow returns up to n lines from byte from (a line start, past
// the end for none), within max bytes, and the start of the line after
// them.
func linesBelow(c string, from, n, maxBytes int) ([]string, int) {
	var out []string
	used := 0
	for len(out) < n {
		if from == len(c) && from > 0 && c[from-1] == '\n' {
			break // the file's last line break ends it: no empty line after
		}
		l, next, ok := nextLine(c, from)
		if !ok || used+len(l)+1 > maxBytes {
			break
		}
		out, used, from = append(out, l), used+len(l)+1, next
	}
	return out, from
}

func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

func writeLines(u *strings.Builder, lines []string) {
	for _, l := range lines {
		u.WriteString(l)
		u.WriteByte('\n')
	}
}

// writeRecent writes the newest recent edits that fit in max bytes,
// oldest of them first.
func writeRecent(u *strings.Builder, recent []FileDiff, maxBytes int) {
	first, used := len(recent), 0
	for first > 0 && used+len(recent[first-1].Diff) <= maxBytes {
		first--
		used += len(recent[first].Diff)
	}
	if first == len(recent) {
		return
	}
	u.WriteString("Recent edits, newest last:\n")
	for _, d := range recent[first:] {
		fmt.Fprintf(u, "--- %s\n%s", d.Path, d.Diff)
		if !strings.HasSuffix(d.Diff, "\n") {
			u.WriteByte('\n')
		}
	}
	u.WriteByte('\n')
}

// writeOpen writes the first snippet of up to n open files, each cut to
// max bytes at a line end.
func writeOpen(u *strings.Builder, open []OpenFile, n, maxBytes int) {
	shown := 0
	for _, f := range open {
		if shown == n {
			break
		}
		if len(f.Snippets) == 0 || strings.TrimSpace(f.Snippets[0].Text) == "" {
			continue
		}
		if shown == 0 {
			u.WriteString("Other open files:\n")
		}
		shown++
		t := f.Snippets[0].Text
		if len(t) > maxBytes {
			t = t[:lineEndBefore(t, maxBytes)]
		}
		fmt.Fprintf(u, "%s (from line %d):\n%s\n", f.Path, f.Snippets[0].StartLine, strings.TrimRight(t, "\n"))
	}
	if shown > 0 {
		u.WriteByte('\n')
	}
}

// writeLints writes up to n diagnostics on lines from..to.
func writeLints(u *strings.Builder, lints []Lint, from, to, n int) {
	shown := 0
	for _, l := range lints {
		if shown == n || l.Line < from || l.Line > to {
			continue
		}
		if shown == 0 {
			u.WriteString("Diagnostics:\n")
		}
		shown++
		fmt.Fprintf(u, "line %d: %s: %s\n", l.Line, l.Severity, strings.TrimSpace(firstLine(l.Message)))
	}
	if shown > 0 {
		u.WriteByte('\n')
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
