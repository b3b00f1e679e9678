package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"keygate/adapters/provider/failure"
	"keygate/domain/llm"
)

// ErrBadBaseURL means the base URL is not http(s) with a host.
var ErrBadBaseURL = errors.New("base URL must be http(s) with a host")

// Query says whose models to list.
type Query struct {
	// Anthropic selects the Anthropic API; otherwise OpenAI-compatible.
	Anthropic bool
	BaseURL   string
	APIKey    string
	// Headers are extra headers; a User-Agent among them is ignored.
	Headers map[string]string
}

// Lister lists models over HTTP. It is safe for concurrent use.
type Lister struct {
	http *http.Client
}

// New returns a Lister over c, which the composition root builds with the
// outbound policy (adapters/egress: guarded dials, no redirect to another
// origin); nil uses a default client.
func New(c *http.Client) *Lister {
	if c == nil {
		c = &http.Client{}
	}
	return &Lister{http: c}
}

var (
	endpointTail = regexp.MustCompile(`/(chat/completions|responses|messages|completions)$`)
	modelsTail   = regexp.MustCompile(`/models?$`)
	versionTail  = regexp.MustCompile(`/v\d+$`)
)

// Candidates returns the model-list URLs to try for a base, in order.
func Candidates(base string) ([]string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("derive models url: %w", ErrBadBaseURL)
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimRight(u.Path, "/")
	var paths []string
	switch {
	case endpointTail.MatchString(p):
		paths = []string{endpointTail.ReplaceAllString(p, "") + "/models"}
	case modelsTail.MatchString(p):
		paths = []string{p}
	case versionTail.MatchString(p):
		paths = []string{p + "/models"}
	case p == "":
		paths = []string{"/v1/models"}
	default:
		paths = []string{p + "/v1/models", p + "/models"}
	}
	out := make([]string, len(paths))
	for i, path := range paths {
		c := *u
		c.Path, c.RawPath = path, ""
		out[i] = c.String()
	}
	return out, nil
}

// List returns the sorted, de-duplicated model ids of an endpoint. It tries
// each candidate URL in turn while the answer is 404.
func (l *Lister) List(ctx context.Context, q Query) ([]string, error) {
	urls, err := Candidates(q.BaseURL)
	if err != nil {
		return nil, err
	}
	var last error
	for _, u := range urls {
		var ids []string
		if q.Anthropic {
			ids, err = l.anthropic(ctx, u, q)
		} else {
			ids, err = l.openai(ctx, u, q)
		}
		var perr *llm.ProviderError
		if errors.As(err, &perr) && perr.Status == http.StatusNotFound {
			last = err
			continue
		}
		if err != nil {
			return nil, err
		}
		return sortUnique(ids), nil
	}
	return nil, last
}

func (l *Lister) openai(ctx context.Context, u string, q Query) ([]string, error) {
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := l.get(ctx, u, q, &page); err != nil {
		return nil, err
	}
	var ids []string
	for _, raw := range page.Data {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			ids = append(ids, s)
			continue
		}
		var m struct{ ID, Name string }
		if json.Unmarshal(raw, &m) == nil {
			if m.ID != "" {
				ids = append(ids, m.ID)
			} else if m.Name != "" {
				ids = append(ids, m.Name)
			}
		}
	}
	return ids, nil
}

func (l *Lister) anthropic(ctx context.Context, base string, q Query) ([]string, error) {
	var ids []string
	after := ""
	for range 100 { // a bound, not a expectation: 100 pages of 100 models
		u, _ := url.Parse(base)
		v := url.Values{"limit": {"100"}}
		if after != "" {
			v.Set("after_id", after)
		}
		u.RawQuery = v.Encode()
		var page struct {
			Data    []struct{ ID string } `json:"data"`
			HasMore bool                  `json:"has_more"`
			LastID  string                `json:"last_id"`
		}
		if err := l.get(ctx, u.String(), q, &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
		if !page.HasMore || page.LastID == "" {
			break
		}
		after = page.LastID
	}
	return ids, nil
}

func (l *Lister) get(ctx context.Context, u string, q Query, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("build models request: %w", err)
	}
	for k, v := range q.Headers {
		if !strings.EqualFold(k, "User-Agent") {
			req.Header.Set(k, v)
		}
	}
	label := "OpenAI"
	switch {
	case q.Anthropic:
		label = "Anthropic"
		req.Header.Set("x-api-key", q.APIKey)
		req.Header.Set("anthropic-version", "2023-06-01")
	case strings.HasSuffix(req.URL.Hostname(), ".azure.com"):
		req.Header.Set("api-key", q.APIKey)
	default:
		req.Header.Set("Authorization", "Bearer "+q.APIKey)
	}
	resp, err := l.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("list models: %w", ctx.Err())
		}
		if refused := failure.Refused(label+" models", err); refused != nil {
			return refused
		}
		return failure.Transient(label, "models request error", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return failure.Transient(label, "models body read error", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Only a short, sanitised reason: the body is whatever the URL an
		// administrator typed answered, and may echo what it was sent.
		secrets := []string{q.APIKey}
		for _, v := range q.Headers {
			secrets = append(secrets, v)
		}
		return failure.Status(label+" models", resp.StatusCode, []byte(llm.BriefText(llm.ErrorReason(string(body)), secrets...)))
	}
	if err := json.Unmarshal(body, into); err != nil {
		return failure.Protocol(label, "models JSON error", err)
	}
	return nil
}

func sortUnique(ids []string) []string {
	sort.Strings(ids)
	out := ids[:0]
	for i, id := range ids {
		if id != "" && (i == 0 || id != ids[i-1]) {
			out = append(out, id)
		}
	}
	return out
}
