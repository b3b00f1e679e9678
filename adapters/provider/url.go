package provider

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
)

// ErrBadBaseURL means a configured base URL is not http(s) with a host, or
// has a fragment.
var ErrBadBaseURL = errors.New("base URL must be http(s) with a host and no fragment")

var versionTail = regexp.MustCompile(`/v\d+$`)

// RequestURL derives the request URL of a model: base used verbatim when
// full is set (Azure deployment URLs keep ?api-version=...), else base plus
// the protocol's standard path, dropping the path's /v1 when base already
// ends in a version segment (/v1, /v3, /v4). The protocol is never inferred
// from the path.
func RequestURL(base string, full bool, kind llm.ProviderKind) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return "", fmt.Errorf("derive request url from %q: %w", redactURL(base, ""), ErrBadBaseURL)
	}
	if full {
		return u.String(), nil
	}
	var path string
	switch kind {
	case llm.ProviderOpenAIChat:
		path = "/v1/chat/completions"
	case llm.ProviderOpenAIResponses:
		path = "/v1/responses"
	case llm.ProviderAnthropic:
		path = "/v1/messages"
	default:
		return "", fmt.Errorf("derive request url: unknown provider kind %q", kind)
	}
	p := strings.TrimRight(u.Path, "/")
	if versionTail.MatchString(p) {
		path = strings.TrimPrefix(path, "/v1")
	}
	u.Path = p + path
	u.RawPath = ""
	return u.String(), nil
}

// redactURL removes credentials from a URL for records and messages: the
// userinfo, the values of key-like query parameters and any occurrence of
// the API key itself.
func redactURL(raw, apiKey string) string {
	out := raw
	if u, err := url.Parse(raw); err == nil {
		if u.User != nil {
			u.User = url.User("redacted")
		}
		q := u.Query()
		changed := false
		for name := range q {
			if callrecord.SensitiveParam(name) {
				q.Set(name, "redacted")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
		out = u.String()
	}
	return scrub(out, apiKey)
}

// scrub replaces every occurrence of the API key in s.
func scrub(s, apiKey string) string {
	if len(apiKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, apiKey, "redacted")
}
