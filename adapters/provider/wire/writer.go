package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Writer appends one JSON document to B. Commas are placed automatically, so
// callers only say what comes next. The zero value is ready to use.
type Writer struct {
	B []byte
	// more[i] is true once container level i has a value, so the next value
	// needs a comma; afterKey suppresses the comma right after a key.
	more     []bool
	afterKey bool
}

func (w *Writer) value() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.more); n > 0 {
		if w.more[n-1] {
			w.B = append(w.B, ',')
		}
		w.more[n-1] = true
	}
}

// BeginObject opens an object value.
func (w *Writer) BeginObject() {
	w.value()
	w.B = append(w.B, '{')
	w.more = append(w.more, false)
}

// EndObject closes the innermost object.
func (w *Writer) EndObject() {
	w.more = w.more[:len(w.more)-1]
	w.B = append(w.B, '}')
}

// BeginArray opens an array value.
func (w *Writer) BeginArray() {
	w.value()
	w.B = append(w.B, '[')
	w.more = append(w.more, false)
}

// EndArray closes the innermost array.
func (w *Writer) EndArray() {
	w.more = w.more[:len(w.more)-1]
	w.B = append(w.B, ']')
}

// Key writes an object key; the next call writes its value.
func (w *Writer) Key(k string) {
	w.value()
	w.B = AppendString(w.B, k)
	w.B = append(w.B, ':')
	w.afterKey = true
}

// String writes a string value.
func (w *Writer) String(s string) {
	w.value()
	w.B = AppendString(w.B, s)
}

// Int writes an integer value.
func (w *Writer) Int(n int64) {
	w.value()
	w.B = strconv.AppendInt(w.B, n, 10)
}

// Float writes a finite number in its shortest form (0.2, not
// 0.20000000000000001); NaN and the infinities have no JSON form, so the
// caller checks them first.
func (w *Writer) Float(f float64) {
	w.value()
	w.B = strconv.AppendFloat(w.B, f, 'g', -1, 64)
}

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	w.value()
	w.B = strconv.AppendBool(w.B, b)
}

// Null writes null.
func (w *Writer) Null() {
	w.value()
	w.B = append(w.B, "null"...)
}

// Raw writes a JSON value given as bytes, compacted. It fails if raw is not
// valid JSON, leaving the writer unchanged.
func (w *Writer) Raw(raw []byte) error {
	if !json.Valid(raw) {
		return fmt.Errorf("write raw json: %w", ErrInvalidJSON)
	}
	w.value()
	w.B = appendCompact(w.B, raw)
	return nil
}

// StringField writes "k":"s".
func (w *Writer) StringField(k, s string) {
	w.Key(k)
	w.String(s)
}

// appendCompact appends valid JSON without insignificant whitespace. It is
// json.Compact without the intermediate bytes.Buffer.
func appendCompact(dst, src []byte) []byte {
	inString, escaped := false, false
	for _, c := range src {
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst
}

// Compact returns raw compacted, or an error if it is not valid JSON.
func Compact(raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, ErrInvalidJSON
	}
	return appendCompact(make([]byte, 0, len(raw)), raw), nil
}

// IsObject reports whether raw is a valid JSON object.
func IsObject(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string (see the package doc for escaping).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// DataURL writes "data:<mime>;base64,<data>" as a string value without
// building the (possibly large) string first.
func (w *Writer) DataURL(mime string, data []byte) {
	w.value()
	w.B = AppendString(w.B, "data:"+mime+";base64,")
	w.B = w.B[:len(w.B)-1]
	w.B = base64.StdEncoding.AppendEncode(w.B, data)
	w.B = append(w.B, '"')
}

// Base64 writes data base64-encoded as a string value.
func (w *Writer) Base64(data []byte) {
	w.value()
	w.B = append(w.B, '"')
	w.B = base64.StdEncoding.AppendEncode(w.B, data)
	w.B = append(w.B, '"')
}
