package metrics

// SecretFindings counts secrets the secret guard found in one call's
// prompt, one per rule id in rules. Rule ids come from the guard's fixed
// rule set, so the label stays bounded; no part of a secret is a label.
func (m *Metrics) SecretFindings(action, kind string, rules []string) {
	for _, r := range rules {
		m.secrets.WithLabelValues(r, action, kind).Inc()
	}
}
