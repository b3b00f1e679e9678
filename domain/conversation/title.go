package conversation

import "strings"

// MaxTitle bounds a conversation title, in characters.
const MaxTitle = 120

// Title is what lists call a conversation whose first user-visible turn is
// m: its text without a tag wrapping all of it (the way a client marks the
// user's query), on one line, whitespace collapsed, at most MaxTitle
// characters (the last an ellipsis when cut).
func Title(m Message) string {
	title := strings.Join(strings.Fields(unwrap(strings.TrimSpace(m.Text()))), " ")
	if r := []rune(title); len(r) > MaxTitle {
		title = string(r[:MaxTitle-1]) + "…"
	}
	return title
}

// unwrap removes an element tag that wraps the whole of s ("<q>…</q>").
func unwrap(s string) string {
	if !strings.HasPrefix(s, "<") {
		return s
	}
	end := strings.IndexByte(s, '>')
	if end < 2 {
		return s
	}
	name := s[1:end]
	if strings.ContainsAny(name, " \t\n/<") {
		return s
	}
	inner, ok := strings.CutSuffix(s[end+1:], "</"+name+">")
	if !ok {
		return s
	}
	return inner
}
