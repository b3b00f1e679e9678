package failure

import (
	"encoding/json"
	"slices"

	"keygate/domain/llm"
)

// FilterResults is Azure's content filter verdict (content_filter_results
// on a choice or a prompt, content_filter_result in an error): one object
// per category, such as
//
//	"hate": {"filtered": false, "severity": "safe"}
//	"protected_material_text": {"detected": true, "filtered": true}
//
// next to entries that are no category (an "error" object when the filter
// did not run).
type FilterResults map[string]json.RawMessage

type filterCategory struct {
	Filtered bool   `json:"filtered"`
	Severity string `json:"severity"`
}

// Hits appends the categories the filter acted on ("filtered": true) to
// have, each once, sorted by name within f.
func (f FilterResults) Hits(have []llm.FilterHit) []llm.FilterHit {
	if len(f) == 0 {
		return have
	}
	names := make([]string, 0, len(f))
	for name := range f {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var c filterCategory
		if json.Unmarshal(f[name], &c) != nil || !c.Filtered ||
			slices.ContainsFunc(have, func(h llm.FilterHit) bool { return h.Category == name }) {
			continue
		}
		have = append(have, llm.FilterHit{Category: name, Severity: c.Severity})
	}
	return have
}

// promptFiltered reads an error body in which a content filter refused the
// prompt (Azure: HTTP 400, error code "content_filter", the verdict in
// innererror.content_filter_result) and returns the categories it acted
// on; ok is false for any other body.
func promptFiltered(body []byte) (hits []llm.FilterHit, ok bool) {
	var doc struct {
		Error *struct {
			Code       string `json:"code"`
			InnerError *struct {
				Result FilterResults `json:"content_filter_result"`
			} `json:"innererror"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.Error == nil || doc.Error.Code != "content_filter" {
		return nil, false
	}
	if ie := doc.Error.InnerError; ie != nil {
		hits = ie.Result.Hits(nil)
	}
	return hits, true
}
