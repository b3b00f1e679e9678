package cursorcloud

import (
	"fmt"
	"strings"
)

// Policy is what an organisation lets reach Cursor's cloud through Keygate.
type Policy string

// The policies.
const (
	// Allow passes every route Keygate does not serve to Cursor, and relays
	// turns on models Keygate does not serve (the laptop default).
	Allow Policy = "allow"
	// Metadata passes only metadata routes; code routes and turns on models
	// Keygate does not serve are refused (the company default).
	Metadata Policy = "metadata"
	// Deny passes nothing: metadata routes are answered locally with an
	// empty message, code routes are refused.
	Deny Policy = "deny"
)

// Policies lists every policy, for flags and help.
var Policies = []Policy{Allow, Metadata, Deny}

// ParsePolicy reads a policy name (case-insensitive, surrounding space
// ignored).
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Policies {
		if p == known {
			return p, nil
		}
	}
	return "", fmt.Errorf("cursor cloud policy %q: want allow, metadata or deny", s)
}

// Meaning says in one sentence what the policy lets through.
func (p Policy) Meaning() string {
	switch p {
	case Allow:
		return "Every request Keygate does not answer itself goes to Cursor, including code, prompts and turns on Cursor's own models."
	case Metadata:
		return "Only account, entitlement, server configuration, feature flag and telemetry requests that carry no code go to Cursor; " +
			"code, prompts, file contents and turns on models Keygate does not serve are refused."
	case Deny:
		return "Nothing goes to Cursor: metadata requests are answered by Keygate with empty answers, everything else is refused."
	}
	return "Unknown policy: treated as deny."
}

// Decision is what happened to one request bound for Cursor.
type Decision string

// The decisions (the ledger's and the metrics' label values).
const (
	// Passed: the request went to Cursor.
	Passed Decision = "passed"
	// Refused: nothing of it went to Cursor; the client got a refusal, or in
	// deny mode a local empty answer.
	Refused Decision = "refused"
)

// Verdict is Decide's answer.
type Verdict struct {
	Decision Decision
	// Stub: answer locally with the empty message of the route's type
	// instead of a refusal (deny mode, metadata routes).
	Stub bool
}

// Decide is the policy's verdict on a request of class c bound for Cursor.
// Only ClassMetadata and ClassCode reach Cursor; anything else is code.
// An unknown policy decides as Deny.
func (p Policy) Decide(c Class) Verdict {
	switch {
	case p == Allow:
		return Verdict{Decision: Passed}
	case p == Metadata && c == ClassMetadata:
		return Verdict{Decision: Passed}
	case p != Metadata && c == ClassMetadata:
		return Verdict{Decision: Refused, Stub: true}
	}
	return Verdict{Decision: Refused}
}

// Refusal is the message a refused client shows its user: it names the
// setting and the route, and what to do.
func (p Policy) Refusal(r Route) string {
	what := "keeps code from Cursor's cloud"
	if p != Metadata {
		what = "keeps every request from Cursor's cloud"
	}
	return fmt.Sprintf("Keygate's policy (KEYGATE_CURSOR_CLOUD=%s) %s: %s was not sent to Cursor. "+
		"For an Agent turn, pick a model Keygate serves; an administrator chooses the policy.", p, what, r)
}
