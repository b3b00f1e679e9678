package openai

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/wire"
)

// Labels name the protocols in error messages and to people choosing one.
const (
	chatLabel      = "OpenAI Chat"
	responsesLabel = "OpenAI Responses"
)

// Options are the per-call settings of a request body.
type Options struct {
	// Extras are the configured extra parameters; nil means none.
	Extras *wire.Extras
	Quirks compat.Quirks
}

// writeParameters writes a tool's JSON schema, or an empty object schema
// when it has none. Kimi's "required": null or missing becomes [].
func writeParameters(w *wire.Writer, params []byte, kimi bool) error {
	if len(params) == 0 {
		params = []byte(`{"type":"object","properties":{}}`)
	}
	if kimi {
		params = kimiSchema(params)
	}
	return w.Raw(params)
}

// kimiSchema sets "required" to [] when it is null or missing at the top
// level. Other schemas pass through untouched.
func kimiSchema(params []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(params, &top) != nil {
		return params
	}
	if r, ok := top["required"]; ok && string(r) != "null" {
		return params
	}
	c, err := wire.Compact(params)
	if err != nil || len(c) < 2 {
		return params
	}
	if string(c) == "{}" {
		return []byte(`{"required":[]}`)
	}
	if _, ok := top["required"]; ok { // explicit null
		out := make([]byte, 0, len(c))
		for i := 0; i < len(c); i++ {
			if i+len(`"required":null`) <= len(c) && string(c[i:i+len(`"required":null`)]) == `"required":null` {
				out = append(out, `"required":[]`...)
				i += len(`"required":null`) - 1
				continue
			}
			out = append(out, c[i])
		}
		return out
	}
	out := append([]byte{}, c[:len(c)-1]...)
	return append(out, `,"required":[]}`...)
}

// arguments returns a tool call's arguments as compact JSON, "{}" when they
// are missing or not an object.
func arguments(args []byte) []byte {
	if wire.IsObject(args) {
		if c, err := wire.Compact(args); err == nil {
			return c
		}
	}
	return []byte("{}")
}

// maxCacheKey is the longest prompt_cache_key OpenAI accepts.
const maxCacheKey = 64

// CacheKey returns the prompt_cache_key for a conversation's key: the key
// itself when it fits, else a stable SHA-256 digest of it.
func CacheKey(key string) string {
	if len(key) <= maxCacheKey {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "kg-" + hex.EncodeToString(sum[:])[:maxCacheKey-3]
}
