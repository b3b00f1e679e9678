package projection

import (
	"fmt"
	"unicode/utf8"
)

// ToolResultLimit is the most tool-result text, in bytes, a provider sees
// per result. Stored results are never cut.
const ToolResultLimit = 64 << 10

// CapToolResult bounds content to limit bytes for the provider view. Short
// content is returned unchanged. Longer content keeps its head and tail, cut
// on UTF-8 boundaries, around a note saying how much was left out and that
// the tool should be re-run with a narrower scope.
func CapToolResult(content string, limit int) string {
	if len(content) <= limit {
		return content
	}
	note := fmt.Sprintf("\n\n[… the middle of this %d-byte result was left out. Re-run the tool with a narrower scope to see it.]\n\n", len(content))
	keep := limit - len(note)
	if keep <= 0 {
		return note[:min(limit, len(note))]
	}
	head := runePrefix(content, keep-keep/2)
	tail := runeSuffix(content, keep/2)
	return head + note + tail
}

// runePrefix returns the longest prefix of s of at most n bytes that does
// not split a rune.
func runePrefix(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// runeSuffix returns the longest suffix of s of at most n bytes that does
// not split a rune.
func runeSuffix(s string, n int) string {
	start := len(s) - n
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}
