package secretscan

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Mode is what the guard does with a request that carries a secret.
type Mode string

// The guard's modes.
const (
	// Off sends requests as they are, unscanned.
	Off Mode = "off"
	// Redact replaces each secret with its Marker and sends the request.
	Redact Mode = "redact"
	// Block refuses the request before any provider sees it.
	Block Mode = "block"
)

// Modes lists the modes in the order they are documented.
var Modes = []Mode{Off, Redact, Block}

// ParseMode reads a mode, case and surrounding space ignored.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("secret guard mode %q: want off, redact or block", s)
}

// Finding is one secret found in a request, named by the rule that found
// it. It carries no part of the secret: findings are counted, audited and
// shown as they are.
type Finding struct {
	// RuleID names the kind of secret (a gitleaks rule id such as
	// "aws-access-token").
	RuleID string
	// Marker is what the secret was (or would be) replaced with: the same
	// secret gives the same marker, so findings of one secret seen twice
	// can be told apart from two secrets (Distinct).
	Marker string
}

// Distinct drops findings of a secret already listed (same marker), keeping
// the first of each.
func Distinct(findings []Finding) []Finding {
	seen := map[string]bool{}
	var out []Finding
	for _, f := range findings {
		if f.Marker != "" && seen[f.Marker] {
			continue
		}
		seen[f.Marker] = true
		out = append(out, f)
	}
	return out
}

// markerTag is the keyed hash's domain separation: a marker's hash cannot
// be confused with any other use of the same key.
const markerTag = "keygate secret guard marker v1\x00"

// Marker is the text a secret is replaced with: the rule and the first
// eight hex digits of HMAC-SHA256(key, secret). It is deterministic (the
// same secret under the same key gives the same marker, so a redacted
// prompt is byte-identical turn after turn) and names no part of the
// secret; two occurrences of one secret can still be told apart from two
// different secrets. The rule id is cleaned to letters, digits and '-' so
// the marker is safe inside JSON strings and code.
func Marker(key []byte, ruleID, secret string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(markerTag))
	m.Write([]byte(secret))
	return "[REDACTED " + cleanRule(ruleID) + " " + hex.EncodeToString(m.Sum(nil)[:4]) + "]"
}

func cleanRule(id string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, id)
	if clean == "" {
		return "secret"
	}
	return clean
}

// Rules returns the distinct rule ids of findings, sorted.
func Rules(findings []Finding) []string {
	var ids []string
	for _, f := range findings {
		ids = append(ids, cleanRule(f.RuleID))
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// BlockedError is a request the guard refused in block mode. Its message
// names the kinds of secret found, never a value, and is written for the
// person who sent the prompt.
type BlockedError struct {
	// Rules are the distinct rule ids found, sorted.
	Rules []string
}

func (e *BlockedError) Error() string {
	kinds := "a secret"
	if len(e.Rules) > 0 {
		kinds = "a secret (" + strings.Join(e.Rules, ", ") + ")"
	}
	return "Keygate's secret guard stopped this request before it reached the model: the prompt contains " +
		kinds + ". Remove the secret from the message, file or tool output and try again; your administrator set the guard to block such requests."
}
