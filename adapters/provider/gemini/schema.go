package gemini

import (
	"fmt"

	"keygate/adapters/provider/wire"
)

// Gemini's functionDeclarations[].parameters is an OpenAPI 3.0 schema
// subset, not JSON Schema: a keyword it does not know is a 400 ("Invalid
// JSON payload received. Unknown name …"). appendSchema rewrites a tool's
// JSON Schema into that subset in one pass, members in their original
// order so the same schema always gives the same bytes:
//
//   - kept: type, format (only enum, date-time, float, double, int32,
//     int64, the ones Gemini accepts), title, description, nullable, enum
//     (only when every value is a string), required, items, properties,
//     anyOf, minItems, maxItems, minProperties, maxProperties, minLength,
//     maxLength, pattern, minimum, maximum, example, default,
//     propertyOrdering;
//   - rewritten: a type list ["string","null"] is type "string" with
//     nullable true; oneOf is anyOf (looser: any instead of exactly one);
//     a string const is a one-value enum; a tuple items list is its first
//     schema;
//   - dropped: everything else, notably $schema, $id, $ref, $defs,
//     definitions, additionalProperties, allOf, not, exclusiveMinimum,
//     exclusiveMaximum, multipleOf, uniqueItems, patternProperties,
//     examples, a non-string const or enum, and properties when empty
//     (Gemini refuses an OBJECT with empty properties).
//
// A $ref is dropped rather than inlined: Cursor's tool schemas carry none.
var keptAsIs = map[string]bool{
	"title": true, "description": true, "nullable": true, "required": true,
	"minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true,
	"example": true, "default": true, "propertyOrdering": true,
}

var geminiFormats = map[string]bool{"enum": true, "date-time": true, "float": true, "double": true, "int32": true, "int64": true}

// appendSchema writes the Gemini form of the JSON Schema raw.
func appendSchema(w *wire.Writer, raw []byte) error {
	if !wire.IsObject(raw) {
		w.BeginObject() // a boolean schema (true) has no Gemini form: any value
		w.EndObject()
		return nil
	}
	s := schemaWriter{w: w, written: map[string]bool{}}
	var ferr error
	w.BeginObject()
	err := wire.Members(raw, func(rawKey, v []byte) bool {
		k, err := str(rawKey)
		if err == nil {
			err = s.member(k, v)
		}
		if err != nil {
			ferr = fmt.Errorf("schema %s: %w", k, err)
			return false
		}
		return true
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if s.nullable {
		w.Key("nullable")
		w.Bool(true)
	}
	w.EndObject()
	return nil
}

// schemaWriter writes the members of one schema object, each key once.
type schemaWriter struct {
	w        *wire.Writer
	written  map[string]bool
	nullable bool
}

// key writes k unless it was written already (anyOf after oneOf).
func (s *schemaWriter) key(k string) bool {
	if s.written[k] {
		return false
	}
	s.written[k] = true
	s.w.Key(k)
	return true
}

func (s *schemaWriter) member(k string, v []byte) error {
	w := s.w
	switch {
	case k == "type":
		t, null, ok := schemaType(v)
		s.nullable = s.nullable || null
		if ok && s.key("type") {
			w.String(t)
		}
	case k == "format":
		if f, err := wire.Str(v); err == nil && geminiFormats[f] && s.key("format") {
			w.String(f)
		}
	case k == "properties":
		return appendProperties(w, v, s.key)
	case k == "items":
		item := v
		if len(v) > 0 && v[0] == '[' {
			item = nil
			_ = wire.Elements(v, func(e []byte) bool { item = e; return false })
		}
		if item != nil && s.key("items") {
			return appendSchema(w, item)
		}
	case k == "anyOf" || k == "oneOf":
		if s.key("anyOf") {
			return appendSchemas(w, v)
		}
	case k == "enum":
		if allStrings(v) && s.key("enum") {
			return w.Raw(v)
		}
	case k == "const":
		if len(v) > 0 && v[0] == '"' && s.key("enum") {
			w.BeginArray()
			err := w.Raw(v)
			w.EndArray()
			return err
		}
	case k == "nullable":
		s.nullable = s.nullable || string(v) == "true" // written once, at the end
	case keptAsIs[k]:
		if s.key(k) {
			return w.Raw(v)
		}
	}
	return nil
}

// appendSchemas writes an array of schemas.
func appendSchemas(w *wire.Writer, arr []byte) error {
	var ferr error
	w.BeginArray()
	err := wire.Elements(arr, func(e []byte) bool {
		ferr = appendSchema(w, e)
		return ferr == nil
	})
	w.EndArray()
	if ferr != nil {
		return ferr
	}
	return err
}

// appendProperties writes properties, each a schema; nothing when empty.
func appendProperties(w *wire.Writer, v []byte, key func(string) bool) error {
	n := 0
	if err := wire.Members(v, func([]byte, []byte) bool { n++; return true }); err != nil {
		return err
	}
	if n == 0 || !key("properties") {
		return nil
	}
	var ferr error
	w.BeginObject()
	err := wire.Members(v, func(rawKey, s []byte) bool {
		name, err := str(rawKey)
		if err != nil {
			ferr = err
			return false
		}
		w.Key(name)
		if err := appendSchema(w, s); err != nil {
			ferr = fmt.Errorf("property %q: %w", name, err)
			return false
		}
		return true
	})
	w.EndObject()
	if ferr != nil {
		return ferr
	}
	return err
}

// schemaType reads type: a name, or a list of names of which the first
// other than "null" is kept and "null" makes the schema nullable.
func schemaType(v []byte) (t string, null, ok bool) {
	if s, err := wire.Str(v); err == nil {
		return s, false, s != "null"
	}
	_ = wire.Elements(v, func(e []byte) bool {
		s, err := wire.Str(e)
		switch {
		case err != nil:
		case s == "null":
			null = true
		case t == "":
			t = s
		}
		return true
	})
	return t, null, t != ""
}

func allStrings(arr []byte) bool {
	ok, n := true, 0
	if err := wire.Elements(arr, func(e []byte) bool {
		n++
		ok = len(e) > 0 && e[0] == '"'
		return ok
	}); err != nil {
		return false
	}
	return ok && n > 0
}

// str decodes a raw member key, which wire.Members gives without quotes.
func str(rawKey []byte) (string, error) {
	q := make([]byte, 0, len(rawKey)+2)
	q = append(q, '"')
	q = append(q, rawKey...)
	q = append(q, '"')
	return wire.Str(q)
}

// hasProperties reports whether an object schema declares any property:
// Gemini refuses parameters of type OBJECT without them, so a tool that
// takes none is declared without parameters.
func hasProperties(raw []byte) bool {
	found := false
	_ = wire.Members(raw, func(k, v []byte) bool {
		if string(k) == "properties" {
			_ = wire.Members(v, func([]byte, []byte) bool { found = true; return false })
		}
		return !found
	})
	return found
}
