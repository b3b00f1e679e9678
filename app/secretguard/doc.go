// Package secretguard scans every model request Keygate sends for someone
// (Agent turns, Tab, inline edits and commit messages, the compatible API,
// connection tests) for credentials with gitleaks' maintained default rule
// set, and redacts or blocks what it finds before any provider sees it.
//
// Guard is a ports.ModelProvider wrapped around the router in the one place
// every model call is built (the composition root's NewModelProvider), so
// no feature can bypass it, and every attempt of a routed call, every kept
// prompt and every call record sees the request as redacted. Redaction is
// deterministic (secretscan.Marker), so a redacted conversation keeps its
// provider cache prefix byte for byte. Each text is scanned once per
// replica: results are kept by the text's SHA-256 in a bounded cache, so a
// turn scans what is new in it, not the whole history again.
//
// Place in the hexagon: application. Imports: the standard library,
// domain/llm, domain/secretscan, ports, github.com/hashicorp/golang-lru/v2
// (the scan cache), github.com/rs/zerolog (to silence gitleaks' logger),
// github.com/spf13/viper (to read the rule set) and
// github.com/zricethezav/gitleaks/v8 (its config, detect and logging
// packages).
package secretguard
