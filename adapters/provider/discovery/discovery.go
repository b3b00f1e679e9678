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
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

// ErrBadBaseURL means the base URL is not http(s) with a host.
var ErrBadBaseURL = errors.New("base URL must be http(s) with a host")

// Query says whose models to list.
type Query struct {
	// Kind is the protocol of the endpoint, which says how to
	// authenticate and read the list.
	Kind    llm.ProviderKind
	BaseURL string
	APIKey  string
	// Headers are extra headers; a User-Agent among them is ignored.
	Headers map[string]string
	// Cloud are a cloud provider's account settings (APIKey is then the
	// pool's secret, empty for an ambient source).
	Cloud ports.CloudSettings
}

// Protocols finds the protocol of a kind; *provider.Registry is one.
type Protocols interface {
	// Lookup returns the protocol of kind, or an error for a kind it does
	// not know.
	Lookup(kind llm.ProviderKind) (protocol.Protocol, error)
}

// Lister lists models over HTTP. It is safe for concurrent use.
type Lister struct {
	http      *http.Client
	metadata  *http.Client
	protocols Protocols
}

// WithMetadata returns a Lister whose cloud listings with the instance-role
// credential source fetch credentials through c, the one client that may
// reach the instance metadata service.
func (l *Lister) WithMetadata(c *http.Client) *Lister {
	n := *l
	n.metadata = c
	return &n
}

// New returns a Lister over c for the protocols given. The composition root
// builds c with the outbound policy (adapters/egress: guarded dials, no
// redirect to another origin); nil uses a default client.
func New(c *http.Client, protocols Protocols) *Lister {
	if c == nil {
		c = &http.Client{}
	}
	return &Lister{http: c, protocols: protocols}
}

var (
	endpointTail = regexp.MustCompile(`/(chat/completions|fim/completions|responses|messages|completions)$`)
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
	p, err := l.protocols.Lookup(q.Kind)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	if p.Models.Discover != nil {
		ids, err := p.Models.Discover(ctx, q.BaseURL, protocol.CredentialsFor(q.APIKey, q.Cloud, l.http, l.metadata))
		if err != nil {
			return nil, err
		}
		return sortUnique(ids), nil
	}
	get := func(ctx context.Context, u string, into any) error { return l.get(ctx, p.Models, u, q, into) }
	var last error
	for _, u := range urls {
		ids, err := p.Models.List(ctx, u, get)
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

// get is the protocol.GetJSON of a listing: q's custom headers, then the
// protocol's credentials; a bounded body; failures classified.
func (l *Lister) get(ctx context.Context, m protocol.Models, u string, q Query, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("build models request: %w", err)
	}
	for k, v := range q.Headers {
		if !strings.EqualFold(k, "User-Agent") {
			req.Header.Set(k, v)
		}
	}
	m.Auth(req.Header, q.APIKey, req.URL)
	label := m.Label
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
