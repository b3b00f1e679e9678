package setup

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// defaultIndent is VS Code's own: a newline and four spaces.
const defaultIndent = "\n    "

// find returns the index of the member named key, or -1.
func find(obj *hujson.Object, key string) int {
	want := string(hujson.String(key))
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && string(lit) == want {
			return i
		}
	}
	return -1
}

// set gives key the value v, in place when it exists (its comments stay)
// or as a new last member indented like the first one. It returns the
// previous value ("" when there was none).
func set(obj *hujson.Object, key string, v hujson.Literal) string {
	if i := find(obj, key); i >= 0 {
		m := &obj.Members[i]
		old := literal(m.Value)
		m.Value.Value = v
		return old
	}
	indent := hujson.Extra(defaultIndent)
	trailing := false
	if n := len(obj.Members); n > 0 {
		indent = indentOf(obj.Members[0].Name.BeforeExtra)
		last := &obj.Members[n-1].Value
		trailing = last.AfterExtra != nil
		if trailing && len(last.AfterExtra) == 0 {
			last.AfterExtra = nil
		}
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: indent, Value: hujson.String(key)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: v},
	}
	if trailing {
		m.Value.AfterExtra = hujson.Extra{}
	}
	obj.Members = append(obj.Members, m)
	if !bytes.ContainsAny(obj.AfterExtra, "\n") {
		obj.AfterExtra = append(hujson.Extra("\n"), obj.AfterExtra...)
	}
	return ""
}

// remove deletes key and returns its value. Comments written above it move
// to whatever followed it, so a user's notes survive an undo.
func remove(obj *hujson.Object, key string) (string, bool) {
	i := find(obj, key)
	if i < 0 {
		return "", false
	}
	m := obj.Members[i]
	old := literal(m.Value)
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if !isBlank(m.Name.BeforeExtra) {
		// Keep the comment lines, drop the indentation that led to the key.
		carried := m.Name.BeforeExtra
		if j := bytes.LastIndexByte(carried, '\n'); j >= 0 && isBlank(carried[j:]) {
			carried = carried[:j]
		}
		if i < len(obj.Members) {
			next := &obj.Members[i].Name
			next.BeforeExtra = append(append(hujson.Extra(nil), carried...), next.BeforeExtra...)
		} else {
			obj.AfterExtra = append(append(hujson.Extra(nil), carried...), obj.AfterExtra...)
		}
	}
	if i == len(obj.Members) && i > 0 {
		// The removed member was last: its successor in that role keeps
		// the file's trailing-comma style.
		last := &obj.Members[i-1].Value
		switch {
		case m.Value.AfterExtra == nil && isBlank(last.AfterExtra):
			last.AfterExtra = nil
		case m.Value.AfterExtra != nil && last.AfterExtra == nil:
			last.AfterExtra = hujson.Extra{}
		}
	}
	return old, true
}

// indentOf returns a newline plus the whitespace that starts the last line
// of extra (the indentation of the member extra precedes), or
// defaultIndent when that line holds more than whitespace.
func indentOf(extra hujson.Extra) hujson.Extra {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 || !isBlank(extra[i:]) {
		return hujson.Extra(defaultIndent)
	}
	return append(hujson.Extra(nil), extra[i:]...)
}

// literal is a value as written, without the comments around it.
func literal(v hujson.Value) string {
	return string(hujson.Value{Value: v.Value}.Pack())
}

// isBlank reports whether extra holds whitespace only (no comment).
func isBlank(extra hujson.Extra) bool {
	return len(bytes.TrimSpace(extra)) == 0
}
