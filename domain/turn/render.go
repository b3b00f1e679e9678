package turn

import (
	"strings"
)

// element renders <name attrs>\nbody\n</name>.
func element(name, attributes, body string) string {
	return "<" + name + attributes + ">\n" + body + "\n</" + name + ">"
}

// wrap renders items inside one element, or nothing when there are none.
func wrap(name string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return element(name, "", strings.Join(items, "\n"))
}

// attrs renders name/value pairs as XML attributes, leaving out empty values.
func attrs(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		b.WriteString(" " + pairs[i] + `="` + attrEscaper.Replace(pairs[i+1]) + `"`)
	}
	return b.String()
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")

func prefixed(prefix, value string) string {
	if value == "" {
		return ""
	}
	return prefix + value
}

func nonEmpty(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// optionalElement renders <name>\nbody\n</name>, or nothing for an empty
// body.
func optionalElement(name, body string) string {
	if body == "" {
		return ""
	}
	return element(name, "", body)
}
