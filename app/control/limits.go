package control

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// Limits of what the control API accepts, in bytes unless said otherwise.
// They are generous for real configurations and small enough that no field
// can make a stored row, an audit entry or an upstream request large.
const (
	MaxDisplayName    = 200
	MaxGroupName      = 100
	MaxTooltip        = 1000
	MaxModelID        = 256
	MaxBaseURL        = 2048
	MaxAPIKey         = 8 << 10
	MaxExtraParams    = 64 << 10
	MaxHeaders        = 32 // custom headers per model
	MaxHeaderName     = 128
	MaxHeaderValue    = 8 << 10
	MaxPrices         = 1000          // price entries in the settings
	MaxFilterID       = 256           // an id or user used as a list filter
	MaxRetentionHours = 10 * 366 * 24 // ten years; 0 keeps records forever
)

// tooLong is the invalid-argument error of a field over its limit.
func tooLong(field string, limit int) error {
	return invalid(field, fmt.Sprintf("is too long: at most %d bytes", limit))
}

// checkLen refuses v longer than limit bytes.
func checkLen(field, v string, limit int) error {
	if len(v) > limit {
		return tooLong(field, limit)
	}
	return nil
}

// checkText refuses v longer than limit or holding control characters
// (line breaks included), which have no place in a name shown in Cursor's
// model picker or the console.
func checkText(field, v string, limit int) error {
	if err := checkLen(field, v, limit); err != nil {
		return err
	}
	if !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return invalid(field, "must be text without control characters or line breaks")
	}
	return nil
}

// checkFilterID bounds an id used to filter a list.
func checkFilterID(field, v string) error { return checkLen(field, v, MaxFilterID) }

// checkBaseURL accepts an http(s) URL with a host, without a fragment and
// without credentials.
func checkBaseURL(raw string) error {
	if err := checkLen("base_url", raw, MaxBaseURL); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return invalid("base_url", "use an http(s) URL with a host, such as https://api.openai.com/v1")
	}
	if u.User != nil {
		return invalid("base_url", "remove the user:password@ part: credentials in a URL would be sent and shown with it; put the key in the API key field")
	}
	return nil
}

// checkAPIKey refuses a key that cannot be a header value: too long, or
// with control characters or spaces (a pasted line break would otherwise
// fail only at call time). A JSON object is a credential document a cloud
// protocol signs with and never sends (a Google service-account key, whose
// PEM has spaces): it must be valid JSON, within the same bound.
func checkAPIKey(field, key string) error {
	if err := checkLen(field, key, MaxAPIKey); err != nil {
		return err
	}
	if strings.HasPrefix(key, "{") {
		if !json.Valid([]byte(key)) {
			return invalid(field, "a credentials file must be valid JSON; paste the whole file")
		}
		return nil
	}
	if strings.IndexFunc(key, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return invalid(field, "must be one line without spaces or control characters; paste the key alone")
	}
	return nil
}

// reservedHeaders are header names a custom header may not set, with why.
// Keygate sets the framing and connection headers itself; credentials go
// only in the API key field, where they are sealed and bound to their
// endpoint, never in a header that would follow a base URL anywhere.
var reservedHeaders = map[string]string{
	"host":              "Keygate sets it from the base URL",
	"content-length":    "Keygate sets it from the request body",
	"transfer-encoding": "Keygate frames the request itself",
	"connection":        "Keygate manages its connections",
	"keep-alive":        "Keygate manages its connections",
	"upgrade":           "Keygate manages its connections",
	"te":                "Keygate frames the request itself",
	"trailer":           "Keygate frames the request itself",
	"expect":            "Keygate frames the request itself",
	"authorization":     "it carries a credential: put the key in the API key field, where it is encrypted and bound to its endpoint",
	"cookie":            "it carries a credential: put the key in the API key field, where it is encrypted and bound to its endpoint",
}

// whyReserved says why a custom header name is refused, or "".
func whyReserved(name string) string {
	n := strings.ToLower(name)
	if why, ok := reservedHeaders[n]; ok {
		return why
	}
	if strings.HasPrefix(n, "proxy-") {
		return "proxy headers are for Keygate's own connections"
	}
	// x-api-key, api-key, x-goog-api-key, …: the protocols' key headers.
	if c := strings.NewReplacer("-", "", "_", "").Replace(n); strings.HasSuffix(c, "apikey") {
		return "it carries a credential: put the key in the API key field, where it is encrypted and bound to its endpoint"
	}
	return ""
}

// checkHeaders validates custom headers as sent upstream: at most
// MaxHeaders, names valid HTTP tokens that no two share ignoring case and
// that Keygate does not reserve, values without control characters.
func checkHeaders(field string, h map[string]string) error {
	if len(h) > MaxHeaders {
		return invalid(field, fmt.Sprintf("at most %d custom headers", MaxHeaders))
	}
	seen := make(map[string]bool, len(h))
	for name, value := range h {
		shown := name
		if len(shown) > 40 || !utf8.ValidString(shown) {
			shown = strings.ToValidUTF8(shown[:min(len(shown), 40)], "") + "…"
		}
		switch {
		case len(name) > MaxHeaderName:
			return invalid(field, fmt.Sprintf("header name %q is too long: at most %d bytes", shown, MaxHeaderName))
		case !httpguts.ValidHeaderFieldName(name):
			return invalid(field, fmt.Sprintf("header name %q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", shown))
		case whyReserved(name) != "":
			return invalid(field, fmt.Sprintf("header %s cannot be set here: %s", name, whyReserved(name)))
		case seen[strings.ToLower(name)]:
			return invalid(field, fmt.Sprintf("header %s is given twice (names ignore case)", name))
		case len(value) > MaxHeaderValue:
			return invalid(field, fmt.Sprintf("the value of header %s is too long: at most %d bytes", name, MaxHeaderValue))
		case !httpguts.ValidHeaderFieldValue(value):
			return invalid(field, fmt.Sprintf("the value of header %s holds a control character such as CR, LF or NUL", name))
		}
		seen[strings.ToLower(name)] = true
	}
	return nil
}
