package vertex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

// cloud declares the account settings of a Vertex AI provider: a project
// and a location, and credentials from a service-account key in the pool,
// the application-default credentials or the machine's metadata server.
var cloud = &protocol.Cloud{
	Fields:    []protocol.CloudField{protocol.FieldProject, protocol.FieldRegion},
	Sources:   []ports.CredentialSource{ports.CredentialKeys, ports.CredentialDefault, ports.CredentialInstanceRole},
	KeyFormat: "a service account's JSON key file",
	BaseURL: func(c ports.CloudSettings) string {
		return locationBase(Location{Project: c.Project, Region: c.Region})
	},
	Check: func(c ports.CloudSettings) error { return Location{Project: c.Project, Region: c.Region}.Check() },
}

// locationBase is the default base URL of a location: Google's host with
// the project's location path, under which the URL rules put the
// publisher's model.
func locationBase(l Location) string {
	return l.Base() + "/v1/projects/" + l.Project + "/locations/" + l.Region
}

// maxTokenSources bounds the credentials whose tokens are cached; past it
// the cache starts over (each source then fetches once more).
const maxTokenSources = 1024

// pool caches one Tokens per credential: a key of the pool by its digest,
// the application-default credentials, the instance's service account.
type pool struct {
	mu sync.Mutex
	m  map[string]*Tokens
}

var tokens = &pool{m: map[string]*Tokens{}}

// of returns the Tokens of c's credential source.
func (p *pool) of(c protocol.Credentials) (*Tokens, error) {
	var id string
	switch c.Cloud.Source {
	case ports.CredentialKeys:
		if c.Key == "" {
			return nil, fmt.Errorf("%w: the provider has no service-account key", ErrCredentials)
		}
		sum := sha256.Sum256([]byte(c.Key))
		id = "key:" + hex.EncodeToString(sum[:])
	case ports.CredentialDefault:
		id = "default"
	case ports.CredentialInstanceRole:
		id = "instance"
	default:
		return nil, fmt.Errorf("%w: credential source %q is not one Vertex AI takes (keys, default, instance_role)", ErrCredentials, c.Cloud.Source)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.m[id]; ok {
		return t, nil
	}
	var t *Tokens
	switch c.Cloud.Source {
	case ports.CredentialKeys:
		var err error
		if t, err = ServiceAccount([]byte(c.Key), TokenOptions{HTTP: c.HTTP}); err != nil {
			return nil, err
		}
	case ports.CredentialDefault:
		t = Default(TokenOptions{HTTP: c.HTTP})
	default:
		t = Instance(TokenOptions{HTTP: c.Metadata})
	}
	if len(p.m) >= maxTokenSources {
		clear(p.m)
	}
	p.m[id] = t
	return t, nil
}

// sign sets the bearer token of c's credentials on req, after checking that
// the URL names a project's location (a base URL that replaces Google's
// host must keep the path).
func sign(label string) func(ctx context.Context, req *http.Request, _ []byte, c protocol.Credentials) error {
	return func(ctx context.Context, req *http.Request, _ []byte, c protocol.Credentials) error {
		if !strings.Contains(req.URL.Path, "/projects/") || !strings.Contains(req.URL.Path, "/locations/") {
			return &llm.ProviderError{Class: llm.ErrorBadRequest, Message: label +
				": the base URL must name the project's location (…/v1/projects/PROJECT/locations/REGION), as the provider's default does"}
		}
		tok, err := token(ctx, c)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		return nil
	}
}

// token is an access token for c, or a provider error naming no secret.
func token(ctx context.Context, c protocol.Credentials) (string, error) {
	t, err := tokens.of(c)
	if err == nil {
		var tok string
		if tok, err = t.Token(ctx); err == nil {
			return tok, nil
		}
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return "", fmt.Errorf("fetch google access token: %w", ctx.Err())
	}
	class := llm.ErrorAuthorization
	if errors.Is(err, ErrTokenUnavailable) {
		class = llm.ErrorTransient
	}
	return "", &llm.ProviderError{Class: class, Message: "Vertex AI " + err.Error(), Err: ErrCredentials}
}
