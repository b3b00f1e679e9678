package gemini

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
)

// label names the protocol in error messages and lists.
const label = "Gemini"

// DefaultBase is Google's endpoint of the Gemini API; a configured base
// (a test's fake, a private gateway) replaces it.
const DefaultBase = "https://generativelanguage.googleapis.com"

// APIVersion is the path segment the request and listing URLs use when the
// configured base names none.
const APIVersion = "v1beta"

// API is Google's Gemini API (generateContent, streamed as SSE).
//
// Vendor is left empty: domain/modelfamily knows the gemini-2.5 and
// gemini-3 families' windows but names no Google vendor, effort levels or
// fast tier, so there is nothing a vendor would switch on.
func API() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderGemini,
		Name:     label,
		Title:    "Google Gemini API (generateContent)",
		URL:      requestURL,
		Auth:     func(h http.Header, apiKey string, _ compat.Quirks) { h.Set("x-goog-api-key", apiKey) },
		Reserved: []string{"contents", "systemInstruction", "tools"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendRequest(dst, req, o)
		},
		NewDecoder: func() protocol.Decoder { return &Decoder{} },
		Models: protocol.Models{Label: label, List: listModels,
			Auth: func(h http.Header, apiKey string, _ *url.URL) { h.Set("x-goog-api-key", apiKey) }},
	}
}

// versionTail matches a base path ending in an API version segment of
// Google's form (v1, v1beta, v1alpha).
var versionTail = regexp.MustCompile(`/v\d+(alpha|beta)?\d*$`)

// requestURL is {base}/v1beta/models/{model}:streamGenerateContent?alt=sse.
// A base that already ends in a version segment keeps it (a user who pastes
// .../v1 asks for the stable API); a model given as "models/x" is x. The key
// travels in x-goog-api-key, never in the URL.
func requestURL(base url.URL, model string) url.URL {
	if !versionTail.MatchString(base.Path) {
		base.Path += "/" + APIVersion
	}
	base.Path += "/models/" + strings.TrimPrefix(model, "models/") + ":streamGenerateContent"
	base.RawPath = ""
	q := base.RawQuery
	if q != "" {
		q += "&"
	}
	base.RawQuery = q + "alt=sse"
	return base
}

// listURL turns a discovery candidate ({base}/v1/models, {base}/models)
// into Gemini's listing, {base}/v1beta/models, keeping a version segment
// of Google's form the base named.
func listURL(candidate string) (*url.URL, error) {
	u, err := url.Parse(candidate)
	if err != nil {
		return nil, err
	}
	p := strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/models")
	version := "/" + APIVersion
	if m := versionTail.FindString(p); m != "" {
		p = strings.TrimSuffix(p, m)
		if m != "/v1" { // discovery's own default segment, not the user's
			version = m
		}
	}
	for versionTail.MatchString(p) {
		p = versionTail.ReplaceAllString(p, "")
	}
	u.Path, u.RawPath = p+version+"/models", ""
	return u, nil
}

// listPages bounds a listing: 50 pages of 1000 models.
const listPages = 50

// listModels pages through models.list with pageToken while nextPageToken
// is set, keeping the models that serve generateContent, without their
// "models/" prefix.
func listModels(ctx context.Context, candidate string, get protocol.GetJSON) ([]string, error) {
	u, err := listURL(candidate)
	if err != nil {
		return nil, err
	}
	var ids []string
	token := ""
	for range listPages {
		v := url.Values{"pageSize": {"1000"}}
		if token != "" {
			v.Set("pageToken", token)
		}
		u.RawQuery = v.Encode()
		var page struct {
			Models []struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			} `json:"models"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := get(ctx, u.String(), &page); err != nil {
			return nil, err
		}
		for _, m := range page.Models {
			for _, method := range m.Methods {
				if method == "generateContent" {
					ids = append(ids, strings.TrimPrefix(m.Name, "models/"))
					break
				}
			}
		}
		if page.NextPageToken == "" || page.NextPageToken == token {
			break
		}
		token = page.NextPageToken
	}
	return ids, nil
}
