package provider

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
)

// ErrBadBaseURL means a configured base URL is not http(s) with a host, or
// has a fragment.
var ErrBadBaseURL = errors.New("base URL must be http(s) with a host and no fragment")

// RequestURL derives a model's request URL with the built-in protocols (see
// Registry.RequestURL) for a protocol whose URL does not name the model.
func RequestURL(base string, full bool, kind llm.ProviderKind) (string, error) {
	return builtin.RequestURL(kind, base, "", full)
}

// RequestURL derives the request URL of a model: base used verbatim when
// full is set (Azure deployment URLs keep ?api-version=...), else the
// protocol's URL rule applied to base and model (protocol.StandardPath for
// the built-in ones). The protocol is never inferred from the path. It
// implements ports.ProviderProtocols.
func (r *Registry) RequestURL(kind llm.ProviderKind, base, model string, full bool) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return "", fmt.Errorf("derive request url from %q: %w", redactURL(base, ""), ErrBadBaseURL)
	}
	p, err := r.Lookup(kind)
	if err != nil {
		return "", fmt.Errorf("derive request url: %w", err)
	}
	if full {
		return u.String(), nil
	}
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
	out := p.URL(*u, model)
	return out.String(), nil
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
	s = strings.ReplaceAll(s, apiKey, "redacted")
	// A cloud credential is several secrets joined by colons (AWS's
	// ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN); a provider echoes
	// them one at a time.
	if strings.Contains(apiKey, ":") {
		for _, part := range strings.Split(apiKey, ":") {
			if len(part) >= 16 {
				s = strings.ReplaceAll(s, part, "redacted")
			}
		}
	}
	return s
}
