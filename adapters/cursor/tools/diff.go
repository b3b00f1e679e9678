package tools

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// maxDiffBytes bounds the texts diffed; larger files get line counts
// without a diff (the matcher's cost grows with the product of the line
// counts).
const maxDiffBytes = 1 << 20

// fileDiff is a file change as the edit card shows it.
type fileDiff struct {
	// text is the unified diff ("" when there is none to show).
	text           *string
	added, removed int32
}

// diffOf is the unified diff of a file from before to after, with three
// lines of context, and the lines it adds and removes (counted from the
// diff itself, so they always agree with it).
func diffOf(path, before, after string) fileDiff {
	if before == after {
		return fileDiff{}
	}
	if len(before)+len(after) > maxDiffBytes {
		return fileDiff{added: lines(after), removed: lines(before)}
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(before), B: splitLines(after),
		FromFile: "a/" + path, ToFile: "b/" + path, Context: 3,
	})
	if err != nil { // it writes to a strings.Builder, which never fails
		return fileDiff{added: lines(after), removed: lines(before)}
	}
	d := fileDiff{text: &text}
	for i, l := range strings.Split(text, "\n") {
		switch {
		case i < 2: // the ---/+++ header
		case strings.HasPrefix(l, "+"):
			d.added++
		case strings.HasPrefix(l, "-"):
			d.removed++
		}
	}
	return d
}

// splitLines splits s into lines that each end in a newline (the last one
// gets one), as the unified format writes them; "" has no line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += "\n"
	return out
}

// lines counts the lines of s as a person does: "" has none, "a" and "a\n"
// one, "a\nb" and "a\nb\n" two.
func lines(s string) int32 {
	if s == "" {
		return 0
	}
	return int32(strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1)
}
