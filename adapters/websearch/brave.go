package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"keygate/ports"
)

// BraveBaseURL is the Brave Search API's origin.
const BraveBaseURL = "https://api.search.brave.com"

// braveMaxCount is the most results the web search endpoint returns at once.
const braveMaxCount = 20

// Brave searches through the Brave Search API's web search endpoint
// (GET /res/v1/web/search, the key in X-Subscription-Token).
type Brave struct{ o Options }

var _ ports.WebSearcher = (*Brave)(nil)

// NewBrave returns a searcher for the Brave Search API; o.APIKey is
// required, o.BaseURL defaults to BraveBaseURL.
func NewBrave(o Options) (*Brave, error) {
	if strings.TrimSpace(o.APIKey) == "" {
		return nil, errors.New("web search: Brave Search needs an API key")
	}
	o, err := o.withDefaults(BraveBaseURL)
	if err != nil {
		return nil, err
	}
	return &Brave{o: o}, nil
}

// braveAnswer is the part of the WebSearchApiResponse Keygate reads.
type braveAnswer struct {
	Web struct {
		Results []struct {
			Title         string   `json:"title"`
			URL           string   `json:"url"`
			Description   string   `json:"description"`
			ExtraSnippets []string `json:"extra_snippets"`
		} `json:"results"`
	} `json:"web"`
}

// braveError is the body of a refused request.
type braveError struct {
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

// Search implements ports.WebSearcher.
func (b *Brave) Search(ctx context.Context, q string, max int) ([]ports.WebResult, error) {
	q, err := query(q)
	if err != nil {
		return nil, fmt.Errorf("Brave Search: %w", err)
	}
	n := min(limit(max), braveMaxCount)
	v := url.Values{"q": {q}, "count": {strconv.Itoa(n)}, "result_filter": {"web"}}
	h := http.Header{"Accept": {"application/json"}, "X-Subscription-Token": {b.o.APIKey}}
	var a braveAnswer
	err = getJSON(ctx, b.o, "Brave Search", b.o.BaseURL+"/res/v1/web/search?"+v.Encode(), h, &a, braveRefusal)
	if err != nil {
		return nil, err
	}
	out := []ports.WebResult{}
	for _, r := range a.Web.Results {
		if len(out) == n {
			break
		}
		snippet := r.Description
		if snippet == "" && len(r.ExtraSnippets) > 0 {
			snippet = r.ExtraSnippets[0]
		}
		if res, ok := result(r.Title, r.URL, snippet); ok {
			out = append(out, res)
		}
	}
	return out, nil
}

// braveRefusal describes a non-2xx answer: the API's own code and detail
// when it sent them (never the key, which it does not echo).
func braveRefusal(status int, body []byte) string {
	var e braveError
	what := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if json.Unmarshal(body, &e) == nil && (e.Error.Code != "" || e.Error.Detail != "") {
		what += ": " + strings.TrimSpace(e.Error.Code+" "+e.Error.Detail)
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		what += " (check the API key and its plan)"
	case http.StatusTooManyRequests:
		what += " (the plan's rate limit)"
	}
	return what
}
