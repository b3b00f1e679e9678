package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax means bytes handed to the scanner were not well-formed JSON.
var ErrSyntax = errors.New("json syntax error")

// Members calls f with each key and raw value of the JSON object obj, in
// order, without allocating. It is the reading half of the package: stream
// decoders use it to pick the few fields of a hot event (a text delta) and
// fall back to encoding/json for everything else. Structure is checked
// (brackets, colons, commas, string escapes are skipped correctly); numbers
// and literals are only delimited, callers parse the ones they use.
func Members(obj []byte, f func(key, value []byte) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return ErrSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return trailing(obj, i+1)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return ErrSyntax
		}
		end, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return ErrSyntax
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		if !f(key, obj[i:vend]) {
			return nil
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return ErrSyntax
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return trailing(obj, i+1)
		default:
			return ErrSyntax
		}
	}
}

// Elements calls f with each raw element of the JSON array arr, in order.
func Elements(arr []byte, f func(value []byte) bool) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return ErrSyntax
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return trailing(arr, i+1)
	}
	for {
		end, err := skipValue(arr, i)
		if err != nil {
			return err
		}
		if !f(arr[i:end]) {
			return nil
		}
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return ErrSyntax
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return trailing(arr, i+1)
		default:
			return ErrSyntax
		}
	}
}

// Str returns the value of a raw JSON string with one allocation, the
// result; escapes are decoded as encoding/json decodes them (invalid UTF-8
// and lone surrogates become U+FFFD).
func Str(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", ErrSyntax
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		for _, c := range body {
			if c < 0x20 {
				return "", ErrSyntax
			}
		}
		return string(body), nil
	}
	var small [256]byte
	out, err := unescape(small[:0], body)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

func unescape(dst, s []byte) ([]byte, error) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return nil, ErrSyntax
			}
			i++
			switch s[i] {
			case '"', '\\', '/':
				dst = append(dst, s[i])
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, n := hex4(s[i+1:])
				if n == 0 {
					return nil, ErrSyntax
				}
				i += n
				if utf16.IsSurrogate(r) {
					r2 := rune(utf8.RuneError)
					if len(s) > i+2 && s[i+1] == '\\' && s[i+2] == 'u' {
						if lo, m := hex4(s[i+3:]); m != 0 {
							if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
								r2 = dec
								i += 2 + m
							}
						}
					}
					r = r2
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return nil, ErrSyntax
			}
			i++
		case c < 0x20:
			return nil, ErrSyntax
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst, nil
}

// hex4 reads four hex digits; n is 4, or 0 when they are not there.
func hex4(s []byte) (r rune, n int) {
	if len(s) < 4 {
		return 0, 0
	}
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(c)
	}
	return r, 4
}

// Int returns the value of a raw JSON integer.
func Int(raw []byte) (int, error) {
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, ErrSyntax
	}
	return n, nil
}

// IsNull reports whether a raw value is the literal null.
func IsNull(raw []byte) bool { return string(raw) == "null" }

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return ErrSyntax
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
// It jumps from quote to quote; a quote preceded by an odd run of
// backslashes is escaped.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, ErrSyntax
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		// Skip a container, checking that brackets pair up. Deeper nesting
		// than the fixed stack is left to encoding/json.
		var stack [64]byte
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				if depth == len(stack) {
					return skipDeep(b, i)
				}
				stack[depth] = b[j] + 2 // '{'+2 == '}', '['+2 == ']'
				depth++
			case '}', ']':
				if depth == 0 || stack[depth-1] != b[j] {
					return 0, ErrSyntax
				}
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, ErrSyntax
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		if j == i {
			return 0, ErrSyntax
		}
		return j, nil
	}
}

// skipDeep delimits a deeply nested value with encoding/json.
func skipDeep(b []byte, i int) (int, error) {
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b[i:]))
	if err := dec.Decode(&raw); err != nil {
		return 0, ErrSyntax
	}
	return i + int(dec.InputOffset()), nil
}
