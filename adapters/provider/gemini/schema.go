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
	written := map[string]bool{}
	key := func(k string) bool {
		if written[k] {
			return false
		}
		written[k] = true
		w.Key(k)
		return true
	}
	var ferr error
	fail := func(k string, err error) bool {
		ferr = fmt.Errorf("schema %s: %w", k, err)
		return false
	}
	nullable := false
	w.BeginObject()
	err := wire.Members(raw, func(rawKey, v []byte) bool {
		k, err := str(rawKey)
		if err != nil {
			return fail("key", err)
		}
		switch {
		case k == "type":
			t, null, ok := schemaType(v)
			nullable = nullable || null
			if ok && key("type") {
				w.String(t)
			}
		case k == "format":
			if f, err := wire.Str(v); err == nil && geminiFormats[f] && key("format") {
				w.String(f)
			}
		case k == "properties":
			if err := appendProperties(w, v, key); err != nil {
				return fail(k, err)
			}
		case k == "items":
			item := v
			if len(v) > 0 && v[0] == '[' {
				item = nil
				_ = wire.Elements(v, func(e []byte) bool { item = e; return false })
			}
			if item != nil && key("items") {
				if err := appendSchema(w, item); err != nil {
					return fail(k, err)
				}
			}
		case k == "anyOf" || k == "oneOf":
			if key("anyOf") {
				w.BeginArray()
				if err := wire.Elements(v, func(e []byte) bool {
					if err := appendSchema(w, e); err != nil {
						return fail(k, err)
					}
					return true
				}); err != nil {
					return fail(k, err)
				}
				w.EndArray()
			}
		case k == "enum":
			if allStrings(v) && key("enum") {
				if err := w.Raw(v); err != nil {
					return fail(k, err)
				}
			}
		case k == "const":
			if len(v) > 0 && v[0] == '"' && key("enum") {
				w.BeginArray()
				if err := w.Raw(v); err != nil {
					return fail(k, err)
				}
				w.EndArray()
			}
		case keptAsIs[k]:
			if k == "nullable" {
				nullable = nullable || string(v) == "true"
				return true // written once, after the members
			}
			if key(k) {
				if err := w.Raw(v); err != nil {
					return fail(k, err)
				}
			}
		}
		return ferr == nil
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if nullable {
		w.Key("nullable")
		w.Bool(true)
	}
	w.EndObject()
	return nil
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
