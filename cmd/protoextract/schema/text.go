package schema

import (
	"sort"
	"strings"
)

// dropped reports comments that must not reach the output: the extractor's
// "Copied from: local:pkg.Name (var: xx)" annotations name a minified
// JavaScript symbol that changes with every Cursor build, so keeping them
// would make the schema differ between builds without any change in content.
func dropped(c comment) bool {
	return strings.HasPrefix(c.text, "// Copied from:")
}

// leadingComments returns the comment lines directly above offset (no blank
// line in between), minus dropped ones, each ending in a newline.
func (f *File) leadingComments(offset int) string {
	i := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].start >= offset })
	var lines []string
	cursor := lineStart(f.src, offset)
	for i--; i >= 0; i-- {
		c := f.comments[i]
		if !c.ownLine || strings.TrimSpace(f.src[c.end:cursor]) != "" || strings.Count(f.src[c.end:cursor], "\n") != 1 {
			break
		}
		cursor = lineStart(f.src, c.start)
		if !dropped(c) {
			lines = append(lines, f.src[cursor:c.end]+"\n")
		}
	}
	var b strings.Builder
	for j := len(lines) - 1; j >= 0; j-- {
		b.WriteString(lines[j])
	}
	return b.String()
}

// definitionText returns src[start:end] with every dropped comment that sits
// on its own line removed together with its indentation and line break.
func (f *File) definitionText(start, end int) string {
	i := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].start >= start })
	var b strings.Builder
	from := start
	for ; i < len(f.comments) && f.comments[i].end <= end; i++ {
		c := f.comments[i]
		if !c.ownLine || !dropped(c) {
			continue
		}
		cut := lineStart(f.src, c.start)
		b.WriteString(f.src[from:cut])
		from = c.end
		if from < len(f.src) && f.src[from] == '\n' {
			from++
		}
	}
	b.WriteString(f.src[from:end])
	return b.String()
}

// lineStart returns the offset of the first byte of the line holding offset.
func lineStart(src string, offset int) int {
	return strings.LastIndexByte(src[:offset], '\n') + 1
}
