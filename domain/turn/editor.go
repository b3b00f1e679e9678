package turn

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the editor channel: it is appended whenever the editor
// changes, so it stays small whatever the client reports.
const (
	// EditorFileLimit bounds each list of files.
	EditorFileLimit = 20
	// EditorLineLimit bounds the text of the cursor's line, in bytes.
	EditorLineLimit = 200
	// EditorByteLimit bounds the whole rendered state, in bytes.
	EditorByteLimit = 4 << 10
)

// Editor is the state of the user's editor when they sent a message: the
// files open in it (the first with the cursor is where the user is) and
// the files they viewed recently. It is compiled into the editor channel's
// request-context message.
type Editor struct {
	Open   []EditorFile
	Recent []EditorFile
}

// EditorFile is a file of the editor's state.
type EditorFile struct {
	Path string
	// Lines is the file's line count, 0 when unknown.
	Lines int
	// CursorLine is the cursor's line (1-based), 0 when the file has no
	// cursor; CursorText that line's text.
	CursorLine int
	CursorText string
}

// NoOpenFiles is the editor channel's text once the client reports an
// editor without files (see Context.Clears).
const NoOpenFiles = "<editor_state>\nNo files are open in the editor now.\n</editor_state>"

// Empty reports whether the state lists no file.
func (e Editor) Empty() bool { return len(e.Open) == 0 && len(e.Recent) == 0 }

// Compile renders the open files, then the recently viewed ones that are
// not open, each list cut at EditorFileLimit and the whole at
// EditorByteLimit; what is left out is counted in the text. "" for an
// empty state. The result depends only on e.
func (e Editor) Compile() string {
	if e.Empty() {
		return ""
	}
	open := map[string]bool{}
	for _, f := range e.Open {
		open[f.Path] = true
	}
	var recent []EditorFile
	for _, f := range e.Recent {
		if !open[f.Path] {
			recent = append(recent, f)
		}
	}
	var b strings.Builder
	b.WriteString("The user's editor when they sent the message below; files may have changed since.")
	budget := EditorByteLimit - len(NoOpenFiles) // room for the tags and the notes
	list := func(title, what string, files []EditorFile) {
		if len(files) == 0 {
			return
		}
		b.WriteString("\n" + title + ":")
		shown := 0
		for _, f := range files {
			line := "\n- " + f.line()
			if shown == EditorFileLimit || b.Len()+len(line) > budget {
				break
			}
			b.WriteString(line)
			shown++
		}
		if left := len(files) - shown; left > 0 {
			fmt.Fprintf(&b, "\n[%d more %s left out]", left, what)
		}
	}
	list("Open files", "open files", e.Open)
	list("Recently viewed files", "recently viewed files", recent)
	return element("editor_state", "", b.String())
}

func (f EditorFile) line() string {
	s := f.Path
	if f.Lines > 0 {
		s += fmt.Sprintf(" (%d lines)", f.Lines)
	}
	if f.CursorLine > 0 {
		s += fmt.Sprintf(", cursor on line %d", f.CursorLine)
		if t := strings.TrimSpace(f.CursorText); t != "" {
			s += ": " + cut(strings.ReplaceAll(t, "\n", " "), EditorLineLimit)
		}
	}
	return s
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ModeContext renders the mode channel's text: the paragraph that says
// which mode the user chose and what it allows.
func ModeContext(paragraph string) string {
	return element("mode", "", strings.TrimSpace(paragraph))
}
