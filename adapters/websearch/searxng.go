package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"keygate/ports"
)

// SearXNG searches through a SearXNG instance's JSON API
// (GET /search?q=…&format=json). The instance must allow the json format
// (search.formats in its settings.yml); it needs no key.
type SearXNG struct{ o Options }

var _ ports.WebSearcher = (*SearXNG)(nil)

// NewSearXNG returns a searcher for the instance at o.BaseURL (required).
func NewSearXNG(o Options) (*SearXNG, error) {
	if o.BaseURL == "" {
		return nil, fmt.Errorf("web search: SearXNG needs the instance's base URL")
	}
	o, err := o.withDefaults("")
	if err != nil {
		return nil, err
	}
	return &SearXNG{o: o}, nil
}

// searxngAnswer is the part of SearXNG's JSON answer Keygate reads.
type searxngAnswer struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search implements ports.WebSearcher.
func (s *SearXNG) Search(ctx context.Context, q string, max int) ([]ports.WebResult, error) {
	q, err := query(q)
	if err != nil {
		return nil, fmt.Errorf("SearXNG: %w", err)
	}
	v := url.Values{"q": {q}, "format": {"json"}, "pageno": {"1"}}
	var a searxngAnswer
	err = getJSON(ctx, s.o, "SearXNG", s.o.BaseURL+"/search?"+v.Encode(), http.Header{"Accept": {"application/json"}}, &a,
		func(status int, _ []byte) string {
			if status == http.StatusForbidden {
				return "403: the instance does not serve the json format; add json to search.formats in its settings.yml"
			}
			if status == http.StatusTooManyRequests {
				return "429: the instance's rate limiter refused the search; exempt Keygate's address in its limiter settings"
			}
			return fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
		})
	if err != nil {
		return nil, err
	}
	out := []ports.WebResult{}
	for _, r := range a.Results {
		if len(out) == limit(max) {
			break
		}
		if res, ok := result(r.Title, r.URL, r.Content); ok {
			out = append(out, res)
		}
	}
	return out, nil
}
