package conversation_test

import "strings"

func replaceOnce(s, old, repl string) string {
	if !strings.Contains(s, old) {
		panic("fixture does not contain " + old)
	}
	return strings.Replace(s, old, repl, 1)
}
