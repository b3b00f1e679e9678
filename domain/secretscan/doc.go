// Package secretscan holds the rules of Keygate's secret guard that need no
// scanner: the guard's modes (off, redact, block), what a finding is
// without its value, the marker a redacted secret becomes, and the error a
// blocked request ends with.
//
// The marker is a pure function of the rule, the secret and a deployment
// key (a keyed hash, never the value), so the same prompt is redacted to
// the same bytes on every turn and every replica: a provider's prompt
// cache keeps matching the prefix. The scan itself (a maintained rule set)
// is app/secretguard's.
//
// Place in the hexagon: domain. Imports: the standard library.
package secretscan
