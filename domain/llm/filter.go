package llm

import "strings"

// FilterHit is one category a provider's content filter flagged and acted
// on, named as the provider names it ("hate", "protected_material_text",
// "jailbreak", Anthropic's refusal category).
type FilterHit struct {
	Category string
	// Severity is the provider's level ("low", "medium", "high"); empty for
	// filters that only detect.
	Severity string
}

// String renders the hit for people: "hate (medium)" or "jailbreak".
func (h FilterHit) String() string {
	if h.Severity == "" {
		return h.Category
	}
	return h.Category + " (" + h.Severity + ")"
}

// DescribeFilter lists hits for people, comma-separated; "" for none.
func DescribeFilter(hits []FilterHit) string {
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = h.String()
	}
	return strings.Join(parts, ", ")
}
