package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalidJSON means a raw JSON value was not valid JSON.
var ErrInvalidJSON = errors.New("invalid json")

// ErrReservedParam means extra parameters tried to replace a field Keygate
// owns (model, stream, messages, ...).
var ErrReservedParam = errors.New("extra parameter replaces a reserved field")

// Extras are configured extra body parameters in their configured order.
// A field the adapter also writes (for example max_tokens) takes the
// configured value in the adapter's position; the rest are appended at the end
// of the body. Use one Extras per request body.
type Extras struct {
	fields []extra
}

type extra struct {
	key   string
	value []byte
	used  bool
}

// ParseExtras reads a JSON object of extra parameters. Empty input means
// none. It fails with ErrInvalidJSON for anything but an object and with
// ErrReservedParam if one of the reserved fields is present: those carry
// the conversation itself or how it is streamed.
func ParseExtras(raw []byte, reserved []string) (*Extras, error) {
	e := &Extras{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return e, nil
	}
	if !IsObject(raw) {
		return nil, fmt.Errorf("parse extra params: %w", ErrInvalidJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("parse extra params: %w", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parse extra params: %w", err)
		}
		key, _ := tok.(string)
		for _, r := range reserved {
			if key == r {
				return nil, fmt.Errorf("extra param %q: %w", key, ErrReservedParam)
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("parse extra param %q: %w", key, err)
		}
		val, _ := Compact(v)
		replaced := false
		for i := range e.fields {
			if e.fields[i].key == key { // a later duplicate wins, as in JSON parsers
				e.fields[i].value = val
				replaced = true
			}
		}
		if !replaced {
			e.fields = append(e.fields, extra{key: key, value: val})
		}
	}
	return e, nil
}

// Field writes key and reports whether the caller should now write its own
// value. When extras configure key, Field writes the configured value itself
// and returns false. A nil *Extras configures nothing.
func (w *Writer) Field(e *Extras, key string) bool {
	w.Key(key)
	if e == nil {
		return true
	}
	for i := range e.fields {
		if e.fields[i].key == key {
			e.fields[i].used = true
			w.value()
			w.B = append(w.B, e.fields[i].value...)
			return false
		}
	}
	return true
}

// Rest writes every configured field the adapter did not write itself.
func (w *Writer) Rest(e *Extras) {
	if e == nil {
		return
	}
	for i := range e.fields {
		if !e.fields[i].used {
			w.Key(e.fields[i].key)
			w.value()
			w.B = append(w.B, e.fields[i].value...)
		}
		e.fields[i].used = false // ready for the next body
	}
}

// Has reports whether extras configure key.
func (e *Extras) Has(key string) bool {
	if e == nil {
		return false
	}
	for _, f := range e.fields {
		if f.key == key {
			return true
		}
	}
	return false
}
