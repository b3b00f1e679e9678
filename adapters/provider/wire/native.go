package wire

import "fmt"

// Member is one top-level field of a body Native writes; a nil Value
// drops the field.
type Member struct {
	Key   string
	Value []byte
}

// Native appends the caller's own request body (a JSON object) to dst,
// which is how a protocol relays a request that arrived in its own wire
// format: each member is copied as it is, without re-encoding (a large
// history costs one scan), except that a member named in set takes set's
// value in its position (dropped when that value is nil), a member the
// extras configure takes the configured value, and set's members the body
// lacks, then the extras not written, are appended at the end.
func Native(dst, body []byte, set []Member, e *Extras) ([]byte, error) {
	w := Writer{B: dst}
	w.BeginObject()
	done := make([]bool, len(set))
	err := Members(body, func(key, value []byte) bool {
		for i, m := range set {
			if m.Key == string(key) {
				done[i] = true
				if m.Value != nil {
					w.Key(m.Key)
					w.value()
					w.B = append(w.B, m.Value...)
				}
				return true
			}
		}
		if e.Has(string(key)) {
			w.Field(e, string(key))
			return true
		}
		w.value()
		w.B = append(w.B, '"')
		w.B = append(w.B, key...) // still escaped as the caller sent it
		w.B = append(w.B, '"', ':')
		w.afterKey = true
		w.value()
		w.B = append(w.B, value...)
		return true
	})
	if err != nil {
		return dst, fmt.Errorf("relay request body: %w", err)
	}
	for i, m := range set {
		if !done[i] && m.Value != nil {
			w.Key(m.Key)
			w.value()
			w.B = append(w.B, m.Value...)
		}
	}
	w.Rest(e)
	w.EndObject()
	return w.B, nil
}
