package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Placeholders that replace a secret's value.
const (
	// Set marks a secret that has a value.
	Set = "[set]"
	// Changed marks a secret whose value differs from the one before.
	Changed = "[changed]"
)

// secretNames are normalised field names (lower case, no '_' or '-')
// whose values are secrets; any name ending in one of them is too.
var secretNames = []string{"apikey", "secret", "password", "token", "authorization", "privatekey", "cookie", "credential", "credentials"}

// IsSecretField reports whether a JSON field name holds a secret. Names
// that merely mention tokens as a quantity (maxOutputTokens) are not.
func IsSecretField(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	for _, s := range secretNames {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// Mask returns before and after (JSON documents, either may be nil) with
// the value of every secret field replaced: by Changed in after when the
// same field held another value before, otherwise by Set; an empty or
// null secret stays as it is, so the log shows a key being removed.
func Mask(before, after []byte) (mb, ma []byte, err error) {
	var b, a any
	if b, err = decode(before); err != nil {
		return nil, nil, fmt.Errorf("mask before: %w", err)
	}
	if a, err = decode(after); err != nil {
		return nil, nil, fmt.Errorf("mask after: %w", err)
	}
	ma, err = encode(walk(a, b, true))
	if err != nil {
		return nil, nil, err
	}
	mb, err = encode(walk(b, nil, false))
	return mb, ma, err
}

// walk masks v; prev is the same position in the earlier document.
func walk(v, prev any, compare bool) any {
	switch t := v.(type) {
	case map[string]any:
		pm, _ := prev.(map[string]any)
		out := make(map[string]any, len(t))
		for k, x := range t {
			if IsSecretField(k) && !empty(x) {
				out[k] = Set
				if old, ok := pm[k]; compare && ok && !empty(old) && !reflect.DeepEqual(old, x) {
					out[k] = Changed
				}
				continue
			}
			out[k] = walk(x, pm[k], compare)
		}
		return out
	case []any:
		pl, _ := prev.([]any)
		out := make([]any, len(t))
		for i, x := range t {
			var p any
			if i < len(pl) {
				p = pl[i]
			}
			out[i] = walk(x, p, compare)
		}
		return out
	default:
		return v
	}
}

func empty(v any) bool { return v == nil || v == "" }

func decode(doc []byte) (any, error) {
	if doc == nil {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func encode(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
