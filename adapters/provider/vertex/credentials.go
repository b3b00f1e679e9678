package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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

// Default returns the tokens of the application-default credentials, read
// on the first fetch from the file GOOGLE_APPLICATION_CREDENTIALS names,
// else from gcloud's application-default login
// (gcloud/application_default_credentials.json under CLOUDSDK_CONFIG or
// ~/.config): a service-account key, an authorized user's refresh token or
// a workload identity federation configuration, each exchanged at its
// token endpoint through o.HTTP. Unlike Google's own lookup it never falls
// back to probing the metadata server, which the outbound policy keeps
// closed: on a Google Cloud machine the source is Instance.
func Default(o TokenOptions) *Tokens {
	client := o.HTTP
	return newTokens(o, func(ctx context.Context) (*oauth2.Token, error) {
		raw, err := defaultFile()
		if err != nil {
			return nil, err
		}
		var kind struct {
			Type google.CredentialsType `json:"type"`
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			return nil, errors.New("the application-default credentials file is not JSON")
		}
		if !slices.Contains(defaultTypes, kind.Type) {
			return nil, fmt.Errorf("application-default credentials of type %q are not taken (%v)", kind.Type, defaultTypes)
		}
		c, err := google.CredentialsFromJSONWithType(withClient(ctx, client), raw, kind.Type, Scope)
		if err != nil {
			return nil, fmt.Errorf("read application-default credentials: %w", err)
		}
		return c.TokenSource.Token()
	})
}

// defaultTypes are the kinds of application-default credentials taken:
// what gcloud and Google Cloud's consoles write for a service account, a
// user, an impersonated service account and workload identity federation.
var defaultTypes = []google.CredentialsType{google.ServiceAccount, google.AuthorizedUser,
	google.ImpersonatedServiceAccount, google.ExternalAccount, google.ExternalAccountAuthorizedUser}

// maxCredentialFile bounds a credentials file read from disk.
const maxCredentialFile = 1 << 20

// defaultFile reads the application-default credentials file.
func defaultFile() ([]byte, error) {
	path := os.Getenv("GOOGLE_APPLICATION_CREDENTIALS")
	if path == "" {
		dir := os.Getenv("CLOUDSDK_CONFIG")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, errors.New("no application-default credentials: GOOGLE_APPLICATION_CREDENTIALS is not set and there is no home directory")
			}
			dir = filepath.Join(home, ".config", "gcloud")
		}
		path = filepath.Join(dir, "application_default_credentials.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("no application-default credentials: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCredentialFile+1))
	if err != nil {
		return nil, fmt.Errorf("read application-default credentials: %w", err)
	}
	if len(raw) > maxCredentialFile {
		return nil, fmt.Errorf("application-default credentials file %s is over %d bytes", path, maxCredentialFile)
	}
	return raw, nil
}

// MetadataTokenURL is where the metadata server of a Google Cloud machine
// (GCE, GKE with Workload Identity, Cloud Run) hands out the access token
// of the machine's service account.
const MetadataTokenURL = "http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token"

// Instance returns the tokens of the service account of the Google Cloud
// machine Keygate runs on, from its metadata server. o.HTTP must be the one
// client the outbound policy lets reach the metadata service; nil refuses.
func Instance(o TokenOptions) *Tokens {
	client := o.HTTP
	return newTokens(o, func(ctx context.Context) (*oauth2.Token, error) {
		if client == nil {
			return nil, errors.New("the instance's metadata service is not reachable")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, MetadataTokenURL+"?scopes="+url.QueryEscape(Scope), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Metadata-Flavor", "Google")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("ask the metadata service: %w", err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxCredentialFile))
		if err != nil {
			return nil, fmt.Errorf("read the metadata service's answer: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("the metadata service answered %d", resp.StatusCode)
		}
		var tok struct {
			AccessToken string `json:"access_token"`
			ExpiresIn   int64  `json:"expires_in"`
			TokenType   string `json:"token_type"`
		}
		if err := json.Unmarshal(raw, &tok); err != nil {
			return nil, errors.New("the metadata service's answer is not a token")
		}
		return &oauth2.Token{AccessToken: tok.AccessToken, TokenType: tok.TokenType,
			Expiry: time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)}, nil
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
		if unavailable(err) {
			return "", fmt.Errorf("%w: fetch an access token: %s: %w", ErrCredentials, tokenError(err), ErrTokenUnavailable)
		}
		return "", fmt.Errorf("%w: fetch an access token: %s", ErrCredentials, tokenError(err))
	}
	if tok.AccessToken == "" {
		return "", fmt.Errorf("%w: the token endpoint answered no access token", ErrCredentials)
	}
	t.tok = tok
	return tok.AccessToken, nil
}

// ErrTokenUnavailable marks a fetch that failed for the token endpoint's
// sake (unreachable, 5xx, 429), not the credential's: worth retrying, and
// no reason to rest the key.
var ErrTokenUnavailable = errors.New("token endpoint unavailable")

// unavailable reports a failed fetch that says nothing about the credential.
func unavailable(err error) bool {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.Response != nil && (re.Response.StatusCode >= 500 || re.Response.StatusCode == http.StatusTooManyRequests)
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// maxDescription bounds what a token endpoint's error description adds to
// a message.
const maxDescription = 200

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
			if len(description) > maxDescription {
				description = description[:maxDescription] + "…"
			}
			msg += " (" + description + ")"
		}
		return msg
	}
	return err.Error()
}
