package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// Scope is the OAuth scope of Vertex AI calls.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// RefreshMargin is how long before its expiry a cached access token is
// replaced: a call never starts on a token that could expire while its
// request is still in flight (Google's tokens last an hour).
const RefreshMargin = 5 * time.Minute

// fetchTimeout bounds one exchange with the token endpoint.
const fetchTimeout = 30 * time.Second

// ErrCredentials means no access token could be had from the configured
// credentials: a malformed service-account key, no application-default
// credentials, or a token endpoint that refused or failed.
var ErrCredentials = errors.New("google credentials")

// Tokens hands out the OAuth access token of one credential, fetching it
// when there is none, or when the cached one expires within RefreshMargin.
// Concurrent callers share one fetch. It is safe for concurrent use.
type Tokens struct {
	mu    sync.Mutex
	fetch func(ctx context.Context) (*oauth2.Token, error)
	tok   *oauth2.Token
	now   func() time.Time
}

// TokenOptions configure a Tokens.
type TokenOptions struct {
	// HTTP sends the token endpoint requests: the composition root passes
	// the outbound policy's client (adapters/egress), so the policy decides
	// the token endpoint's connection like any other. nil uses a plain
	// client.
	HTTP *http.Client
	// Now is the clock that decides whether a cached token is still good;
	// nil uses time.Now.
	Now func() time.Time
}

// ServiceAccount returns the tokens of a service-account key (the JSON
// file Google issues, "type": "service_account"): each fetch signs a JWT
// assertion with the key's private key and exchanges it at the key's
// token_uri (RFC 7523). The key is checked here, so a malformed one is
// refused when it is configured rather than on the first call; the error
// never quotes the key.
func ServiceAccount(key []byte, o TokenOptions) (*Tokens, error) {
	var probe struct {
		Type        string `json:"type"`
		ClientEmail string `json:"client_email"`
		PrivateKey  string `json:"private_key"`
	}
	if err := json.Unmarshal(key, &probe); err != nil {
		return nil, fmt.Errorf("%w: the service-account key is not JSON", ErrCredentials)
	}
	if probe.Type != "service_account" {
		return nil, fmt.Errorf("%w: the key's type is %q, not service_account", ErrCredentials, probe.Type)
	}
	if probe.ClientEmail == "" || probe.PrivateKey == "" {
		return nil, fmt.Errorf("%w: the service-account key has no client_email or private_key", ErrCredentials)
	}
	conf, err := google.JWTConfigFromJSON(key, Scope)
	if err != nil {
		return nil, fmt.Errorf("%w: the service-account key cannot be read", ErrCredentials)
	}
	if conf.TokenURL == "" {
		conf.TokenURL = google.JWTTokenURL
	}
	client := o.HTTP
	return newTokens(o, func(ctx context.Context) (*oauth2.Token, error) {
		// A fresh source each time: the library's own cache would hand
		// back the token this cache decided to replace.
		return conf.TokenSource(withClient(ctx, client)).Token()
	}), nil
}

// Default returns the tokens of the application-default credentials,
// found on the first fetch as Google's libraries find them: the file named
// by GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default login,
// then the metadata server of the machine Keygate runs on (GCE, GKE with
// Workload Identity, Cloud Run). Credentials read from a file exchange at
// their token endpoint through o.HTTP; the metadata server, a link-local
// service of the machine, is asked by Google's metadata client directly.
func Default(o TokenOptions) *Tokens {
	var (
		once  sync.Once
		found *google.Credentials
		err   error
	)
	client := o.HTTP
	return newTokens(o, func(ctx context.Context) (*oauth2.Token, error) {
		once.Do(func() { found, err = google.FindDefaultCredentials(withClient(ctx, client), Scope) })
		if err != nil {
			return nil, fmt.Errorf("find application-default credentials: %w", err)
		}
		if len(found.JSON) == 0 {
			return google.ComputeTokenSource("", Scope).Token()
		}
		c, err := google.CredentialsFromJSON(withClient(ctx, client), found.JSON, Scope)
		if err != nil {
			return nil, fmt.Errorf("read application-default credentials: %w", err)
		}
		return c.TokenSource.Token()
	})
}

func newTokens(o TokenOptions, fetch func(ctx context.Context) (*oauth2.Token, error)) *Tokens {
	t := &Tokens{fetch: fetch, now: o.Now}
	if t.now == nil {
		t.now = time.Now
	}
	return t
}

// withClient makes the oauth2 library send its requests with client.
func withClient(ctx context.Context, client *http.Client) context.Context {
	if client == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, client)
}

// Token returns an access token valid for at least RefreshMargin, from the
// cache or a fetch bounded by fetchTimeout and ctx.
func (t *Tokens) Token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok != nil && (t.tok.Expiry.IsZero() || t.now().Add(RefreshMargin).Before(t.tok.Expiry)) {
		return t.tok.AccessToken, nil
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	tok, err := t.fetch(fctx)
	if err != nil {
		return "", fmt.Errorf("%w: fetch an access token: %s", ErrCredentials, tokenError(err))
	}
	if tok.AccessToken == "" {
		return "", fmt.Errorf("%w: the token endpoint answered no access token", ErrCredentials)
	}
	t.tok = tok
	return tok.AccessToken, nil
}

// tokenError describes a failed fetch without the token endpoint's raw
// answer, which is the only part that could echo what was sent.
func tokenError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := "token endpoint refused"
		if re.Response != nil {
			msg += fmt.Sprintf(" with %d", re.Response.StatusCode)
		}
		code, description := re.ErrorCode, re.ErrorDescription
		if code == "" { // the JWT flow leaves RFC 6749's error body unparsed
			var body struct {
				Error            string `json:"error"`
				ErrorDescription string `json:"error_description"`
			}
			if json.Unmarshal(re.Body, &body) == nil {
				code, description = body.Error, body.ErrorDescription
			}
		}
		if code != "" {
			msg += ": " + code
		}
		if description != "" {
			msg += " (" + description + ")"
		}
		return msg
	}
	return err.Error()
}
