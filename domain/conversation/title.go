package conversation

import "strings"

// MaxTitle bounds a conversation title, in characters.
const MaxTitle = 120

// Title is what lists call a conversation whose first user-visible turn is
// m: its text on one line, whitespace collapsed, at most MaxTitle
// characters (the last an ellipsis when cut).
func Title(m Message) string {
	title := strings.Join(strings.Fields(m.Text()), " ")
	if r := []rune(title); len(r) > MaxTitle {
		title = string(r[:MaxTitle-1]) + "…"
	}
	return title
}
