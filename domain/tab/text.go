package tab

import (
	"strings"
	"unicode/utf8"
)

// spot is the cursor located in a file: the 0-indexed line, the byte
// offsets of that line (without its line break, "\r\n" or "\n") and of
// the cursor.
type spot struct {
	line               int
	lineStart, lineEnd int
	offset             int
}

// before and after are the cursor line's text on each side of the cursor.
func (s spot) before(contents string) string { return contents[s.lineStart:s.offset] }
func (s spot) after(contents string) string  { return contents[s.offset:s.lineEnd] }

// locate finds in's cursor. It scans the file only up to the cursor line,
// at memchr speed, and splits nothing. A line past the end of the file is
// not a cursor (ok false); a column past the end of its line is the line's
// end.
func locate(in Input) (spot, bool) {
	if in.Line < 0 || in.Column < 0 {
		return spot{}, false
	}
	c := in.Contents
	start, ok := lineStart(c, in.Line)
	if !ok {
		return spot{}, false
	}
	end := len(c)
	if i := strings.IndexByte(c[start:], '\n'); i >= 0 {
		end = start + i
	}
	if end > start && c[end-1] == '\r' {
		end--
	}
	return spot{line: in.Line, lineStart: start, lineEnd: end, offset: start + utf16Offset(c[start:end], in.Column)}, true
}

// skipChunk is how many bytes lineStart counts line breaks in at once:
// counting is vectorised, so whole chunks before the line cost little.
const skipChunk = 2048

// lineStart is the byte offset of 0-indexed line n of c.
func lineStart(c string, n int) (int, bool) {
	start := 0
	for n > 0 {
		if end := start + skipChunk; end <= len(c) {
			if k := strings.Count(c[start:end], "\n"); k < n {
				n, start = n-k, end
				continue
			}
		}
		i := strings.IndexByte(c[start:], '\n')
		if i < 0 {
			return 0, false
		}
		start, n = start+i+1, n-1
	}
	return start, true
}

// utf16Offset is the byte offset in line of col UTF-16 code units, as the
// editor counts columns; past the end it is the line's length.
func utf16Offset(line string, col int) int {
	units := 0
	for i, r := range line {
		if units >= col {
			return i
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return len(line)
}

// nextLine returns the line of c starting at byte from (a line start),
// without its line break, and the start of the next; ok is false past
// the end.
func nextLine(c string, from int) (line string, next int, ok bool) {
	if from > len(c) {
		return "", from, false
	}
	rest := c[from:]
	i := strings.IndexByte(rest, '\n')
	if i < 0 {
		return strings.TrimSuffix(rest, "\r"), len(c) + 1, true
	}
	return strings.TrimSuffix(rest[:i], "\r"), from + i + 1, true
}

// prevLine returns the line ending just before byte end (the start of a
// line), and that line's start; ok is false at the start of the file.
func prevLine(c string, end int) (line string, start int, ok bool) {
	if end <= 0 {
		return "", 0, false
	}
	body := c[:end-1] // without the '\n' that ends the line
	start = strings.LastIndexByte(body, '\n') + 1
	return strings.TrimSuffix(body[start:], "\r"), start, true
}

// lineStartAfter is the first line start at or after byte i of c (len(c)
// when none), and lineEndBefore the last line end at or before byte i.
func lineStartAfter(c string, i int) int {
	if i <= 0 {
		return 0
	}
	if c[i-1] == '\n' {
		return i
	}
	j := strings.IndexByte(c[i:], '\n')
	if j < 0 {
		return len(c)
	}
	return i + j + 1
}

func lineEndBefore(c string, i int) int {
	if i >= len(c) {
		return len(c)
	}
	j := strings.LastIndexByte(c[:i], '\n')
	if j < 0 {
		return 0
	}
	return j
}

// runeStart moves i back to the start of the rune it falls in, so a cut
// never splits a character.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
