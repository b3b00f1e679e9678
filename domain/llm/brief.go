package llm

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBrief bounds, in characters, the provider text BriefText keeps.
const MaxBrief = 200

// redacted replaces a secret or anything that looks like a credential.
const redacted = "[redacted]"

// credentialLike matches what an endpoint may echo of a credential: an
// auth scheme and its token, the vendors' key prefixes, and any long run
// of token characters (keys, JWT segments); model ids and words are
// shorter.
var credentialLike = regexp.MustCompile(
	`(?i)\b(?:bearer|basic)\s+[^\s"',;]+` +
		`|\b(?:sk|pk|rk|xai|gsk|ghp|gho|github_pat|hf|glpat)[-_][A-Za-z0-9_-]{8,}` +
		`|\bAIza[A-Za-z0-9_-]{8,}` +
		`|[A-Za-z0-9+/=_-]{40,}`)

// ansiEscape matches terminal escape sequences, removed whole rather than
// leaving their printable tail.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]")

// BriefText makes upstream text fit to show an administrator: control
// and formatting characters removed (so nothing can hide between a
// secret's characters), whitespace collapsed, every given secret of at
// least 4 bytes and anything credential-like replaced by "[redacted]",
// and the result cut to MaxBrief characters.
func BriefText(text string, secrets ...string) string {
	text = ansiEscape.ReplaceAllString(text, "")
	text = strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError:
			return -1
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(text, ""))
	text = strings.Join(strings.Fields(text), " ")
	for _, s := range secrets {
		if len(s) >= 4 {
			text = strings.ReplaceAll(text, s, redacted)
		}
	}
	text = credentialLike.ReplaceAllString(text, redacted)
	if utf8.RuneCountInString(text) > MaxBrief {
		text = string([]rune(text)[:MaxBrief]) + "…"
	}
	return text
}

// messageField finds a JSON "message" string, closed or not.
var messageField = regexp.MustCompile(`"message"\s*:\s*"((?:[^"\\]|\\.)*)`)

// ErrorReason is the human part of an upstream error body: the message of
// a JSON error as OpenAI ({"error":{"message"}}), Anthropic (the same in a
// typed envelope) and most compatible servers ({"message"}, {"error":
// "..."}, {"detail": "..."}) send it, else the body itself. It neither
// bounds nor cleans the text: BriefText does.
func ErrorReason(body string) string {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal([]byte(body), &doc) != nil {
		// A body cut short is no valid JSON; its first message field is
		// still the best reason.
		if m := messageField.FindStringSubmatch(body); m != nil {
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				return s
			}
		}
		return body
	}
	var nested struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(doc.Error, &nested) == nil && nested.Message != "":
		return nested.Message
	case json.Unmarshal(doc.Error, &s) == nil && s != "":
		return s
	case doc.Message != "":
		return doc.Message
	case json.Unmarshal(doc.Detail, &s) == nil && s != "":
		return s
	}
	return body
}

// Brief is the error as an administrator may see it: the HTTP status, if
// any, and the message through BriefText, a JSON error body in it reduced
// to its ErrorReason.
func (e *ProviderError) Brief(secrets ...string) string {
	text := e.Message
	if i := strings.IndexByte(text, '{'); i >= 0 {
		text = text[:i] + ErrorReason(text[i:])
	}
	msg := BriefText(text, secrets...)
	if e.Status != 0 {
		return "HTTP " + strconv.Itoa(e.Status) + ": " + msg
	}
	return msg
}
