package turn

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits of the files channel: it is appended whenever the contents
// change, and the client sends whole files, so it is bounded whatever
// the client reports.
const (
	// FileContentsLimit bounds the contents shown of all files together, in
	// bytes.
	FileContentsLimit = 64 << 10
	// FileContentLimit bounds the contents shown of one file, in bytes.
	FileContentLimit = 32 << 10
	// FileNotesLimit bounds the notes on files left out whole.
	FileNotesLimit = 20
)

// OpenFiles is the contents of the files open in the user's editor, by
// path, as the client sent them with the request (the editor channel has
// their paths, line counts and cursors). It is compiled into the files
// channel's request-context message.
type OpenFiles map[string]string

// Compile renders the files in path order (the client's map has none, and
// the same contents must compile to the same bytes). Each file's contents
// are cut at FileContentLimit, and the files with their paths and tags at
// FileContentsLimit, at a line's end (mid-line only when a file's first
// line alone is longer than FileContentLimit); what is left out is said
// after the file ("… (N more bytes of path not shown)"), for at most
// FileNotesLimit files left out whole (their paths cut at EditorLineLimit),
// then counted. "" when there is no file. The result depends only on f.
func (f OpenFiles) Compile() string {
	if len(f) == 0 {
		return ""
	}
	paths := make([]string, 0, len(f))
	for p := range f {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("The contents of the files open in the user's editor when they sent the message below; files may have changed since.")
	budget, notes, unlisted := FileContentsLimit-b.Len(), 0, 0
	for _, p := range paths {
		content := f[p]
		open := "\n" + element("file", attrs("path", p), "")
		room := min(FileContentLimit, budget-len(open))
		shown := cutAtLine(content, room)
		if len(shown) < len(content) && !strings.HasSuffix(shown, "\n") && room < FileContentLimit {
			// Part of a line is shown only of a file whose first line
			// alone is over the cap, never as the channel's last bytes.
			shown = ""
		}
		if room < 0 || (shown == "" && content != "") {
			if notes == FileNotesLimit {
				unlisted++
				continue
			}
			notes++
			fmt.Fprintf(&b, "\n… (%d more bytes of %s not shown)", len(content), cut(p, EditorLineLimit))
			continue
		}
		budget -= len(open) + len(shown)
		b.WriteString("\n" + element("file", attrs("path", p), strings.TrimSuffix(shown, "\n")))
		if left := len(content) - len(shown); left > 0 {
			fmt.Fprintf(&b, "\n… (%d more bytes of %s not shown)", left, p)
		}
	}
	if unlisted > 0 {
		fmt.Fprintf(&b, "\n[%d more files not shown]", unlisted)
	}
	return element("open_file_contents", "", b.String())
}

// cutAtLine is the longest prefix of s of at most n bytes that ends at a
// line's end, or on a rune boundary when its first line alone is longer.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 {
		return s[:i+1]
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
