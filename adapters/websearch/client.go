package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"

	"keygate/adapters/egress"
	"keygate/ports"
)

// Defaults of Options.
const (
	DefaultTimeout    = 15 * time.Second
	DefaultMaxResults = 8
	// maxResponse bounds a backend's JSON answer; a page of results is a
	// few tens of kilobytes.
	maxResponse = 2 << 20
	// maxQuery bounds the query sent: Brave refuses more than 400
	// characters, and no search needs more.
	maxQuery = 400
)

// Options configure a backend.
type Options struct {
	// BaseURL is the backend's origin (and path prefix), without a trailing
	// slash; each backend has its default.
	BaseURL string
	// APIKey authenticates to a commercial backend. It is sent only in the
	// backend's auth header and never appears in an error.
	APIKey string
	// HTTP makes the requests; it must refuse cross-origin redirects when
	// a key is set (egress.Policy.HTTPClient does). Required.
	HTTP *http.Client
	// Timeout bounds one search, response included (DefaultTimeout).
	Timeout time.Duration
}

func (o Options) withDefaults(base string) (Options, error) {
	if o.HTTP == nil {
		return o, errors.New("web search: an HTTP client is required")
	}
	if o.BaseURL == "" {
		o.BaseURL = base
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return o, errors.New("web search: the base URL must be http(s)://host[:port][/path] without credentials")
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o, nil
}

// getJSON GETs u with header and decodes a 2xx JSON answer into into. A
// non-2xx answer becomes an error by describe, which reads at most a
// bounded prefix of the body.
func getJSON(ctx context.Context, o Options, name, u string, header http.Header, into any, describe func(status int, body []byte) string) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s: build request: %w", name, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := o.HTTP.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL may carry the query; the cause says enough
		}
		return fmt.Errorf("%s unreachable: %w", name, egress.Redact(err, ""))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", name, egress.Redact(err, ""))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s: %s", name, describe(resp.StatusCode, prefix(body, 512)))
	}
	if len(body) > maxResponse {
		return fmt.Errorf("%s: answer larger than %d bytes", name, maxResponse)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%s: answer is not the expected JSON: %w", name, err)
	}
	return nil
}

func prefix(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// query trims a model's query to what backends accept, at a word boundary.
func query(q string) (string, error) {
	q = strings.Join(strings.Fields(q), " ")
	if q == "" {
		return "", errors.New("the search query is empty")
	}
	if len(q) <= maxQuery {
		return q, nil
	}
	cut := q[:maxQuery]
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut, nil
}

func limit(max int) int {
	if max <= 0 {
		return DefaultMaxResults
	}
	return max
}

// plainText removes markup from a backend's snippet (Brave marks matches
// with <strong>) and decodes entities, collapsing whitespace.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return strings.Join(strings.Fields(s), " ")
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			// Inline markup (<strong>, <em>) joins its neighbours; a break
			// or a block separates words.
			if name, _ := z.TagName(); blockTags[string(name)] {
				b.WriteByte(' ')
			}
		}
	}
}

// blockTags separate the words around them.
var blockTags = map[string]bool{"br": true, "p": true, "div": true, "li": true, "ul": true, "ol": true, "tr": true, "td": true, "th": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "blockquote": true, "pre": true, "table": true}

// result builds a ports.WebResult from a backend's fields; one without an
// http(s) URL is dropped.
func result(title, link, snippet string) (ports.WebResult, bool) {
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ports.WebResult{}, false
	}
	return ports.WebResult{Title: plainText(title), URL: u.String(), Snippet: plainText(snippet)}, true
}
