package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
	"keygate/ports"
)

// Protocol is everything Keygate knows about one provider wire protocol.
// Every field is required, except Headers.
type Protocol struct {
	// Kind is the protocol's stored name: model configurations, call
	// records and replay state carry it. The control API's ProviderKind
	// value for it is PROVIDER_KIND_ followed by Kind in upper case.
	Kind llm.ProviderKind
	// Name labels the protocol in error messages ("OpenAI Chat 401: …"),
	// validation messages and the console's model list.
	Name string
	// Title is the console's label for choosing the protocol ("OpenAI Chat
	// Completions (and compatible)").
	Title string
	// Vendor is the vendor whose own API the protocol is (a
	// domain/modelfamily Vendor: "openai", "anthropic") and VendorHost that
	// API's host. The model picker offers a known family's own effort
	// levels on its vendor's protocol, and its fast tier only at VendorHost,
	// the one place the tier is documented. Both are empty for a protocol
	// of no known vendor.
	Vendor, VendorHost string
	// URL derives the request URL from a configured base and the upstream
	// model id. base is an http(s) URL with a host, no fragment and no
	// trailing slash on its path; URL may set its path and query.
	// StandardPath builds the usual rule.
	URL func(base url.URL, model string) url.URL
	// Auth sets the credential header, and the API-version header where
	// the protocol has one, of a model call. q are the deviations of the
	// endpoint called (Azure authenticates differently). Required unless
	// Sign is set.
	Auth func(h http.Header, apiKey string, q compat.Quirks)
	// Sign, when set, authorises a model call by signing it or by fetching
	// a token (the cloud protocols): it runs last, after every header is
	// set, with the request's final body bytes, and may set headers only.
	// Its errors are *llm.ProviderError (a credential that cannot be had
	// is ErrorAuth) or wrap ctx's error.
	Sign func(ctx context.Context, req *http.Request, body []byte, c Credentials) error
	// Cloud, when set, declares the account settings and credential
	// sources the protocol takes; the console shows exactly these fields.
	Cloud *Cloud
	// Frames, when set, reads a response body that is not SSE (AWS's
	// binary event stream) as events for the Decoder; nil reads SSE.
	Frames func(body io.Reader) Events
	// Headers, when set, adds the headers a request's own settings need
	// (Anthropic's fast mode is a beta behind a header). It runs after the
	// model's configured custom headers and must keep what they set.
	Headers func(h http.Header, req llm.Request)
	// Reserved are the body fields that carry the conversation or how it is
	// streamed; a model's extra parameters may not replace them.
	Reserved []string
	// AppendRequest appends the JSON body of a streaming request for req to
	// dst. The same req must always give the same bytes: prompt caches
	// match on the exact prefix.
	AppendRequest func(dst []byte, req llm.Request, o RequestOptions) ([]byte, error)
	// NewDecoder returns the decoder of one streamed response.
	NewDecoder func() Decoder
	// Models lists the models of an endpoint, for discovery.
	Models Models
	// Accept is the Accept header of a model call; empty means
	// text/event-stream.
	Accept string
	// FillIn marks a fill-in-the-middle protocol: AppendRequest takes only
	// requests with llm.Request.FillIn set, and refuses the others (and a
	// conversation protocol refuses a FillIn request).
	FillIn bool
}

// ErrWrongShape means a request reached a protocol that cannot carry it: a
// fill-in-the-middle request (llm.Request.FillIn) at a conversation
// protocol, or a conversation at a fill-in protocol.
var ErrWrongShape = errors.New("request does not fit the protocol")

// RefuseFillIn is the first check of a conversation protocol's
// AppendRequest: a fill-in-the-middle request has no messages to send.
func RefuseFillIn(name string, req llm.Request) error {
	if req.FillIn != nil {
		return fmt.Errorf("%w: %s holds a conversation and cannot complete a fill-in-the-middle request; use a fill-in-the-middle protocol", ErrWrongShape, name)
	}
	return nil
}

// RequireFillIn is the first check of a fill-in protocol's AppendRequest: it
// takes a prefix and a suffix, never a conversation, so a request without
// FillIn, or with messages, tools or instructions beside it, is refused.
func RequireFillIn(name string, req llm.Request) error {
	switch {
	case req.FillIn == nil:
		return fmt.Errorf("%w: %s is a fill-in-the-middle protocol and takes only a prefix and a suffix, not a conversation (a Cursor Agent turn)", ErrWrongShape, name)
	case len(req.Messages) > 0 || len(req.Tools) > 0 || req.Instructions != "":
		return fmt.Errorf("%w: %s is a fill-in-the-middle protocol: a request carries a prefix and a suffix without messages, tools or instructions", ErrWrongShape, name)
	}
	return nil
}

// RequestOptions are the per-call settings of a request body.
type RequestOptions struct {
	// Extras are the model's configured extra body parameters; nil means none.
	Extras *wire.Extras
	// Quirks are the deviations of the endpoint called.
	Quirks compat.Quirks
}

// Decoder turns the SSE events of one response into model events. It is
// used by one goroutine.
type Decoder interface {
	// Decode handles one SSE event, appending model events to out. Events
	// appended before an error are still delivered.
	Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error)
	// End handles the end of the body.
	End(out []llm.Event) ([]llm.Event, error)
	// Ended reports that the terminal event was handled.
	Ended() bool
	// Meta returns the provider's response id and model.
	Meta() (id, model string)
}

// Events reads the framed events of one response body.
type Events interface {
	// Next returns the next event, io.EOF at a clean end of the body.
	Next() (sse.Event, error)
}

// Credentials are what Sign authorises a request with.
type Credentials struct {
	// Key is the secret of a CredentialKeys source (an AWS
	// "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]", a service-account
	// JSON), opened from the pool for this call; empty for an ambient
	// source. Never logged or echoed.
	Key string
	// Cloud are the provider's account settings.
	Cloud ports.CloudSettings
	// HTTP fetches credentials (STS, a token endpoint): the outbound
	// policy's client, like the model call's.
	HTTP *http.Client
	// Metadata is the one client that may reach the cloud's instance
	// metadata service (169.254.169.254), given only for
	// ports.CredentialInstanceRole; nil otherwise.
	Metadata *http.Client
}

// CredentialsFor are the credentials of a call with key and cloud: the
// outbound policy's client for credential fetches, and the metadata client
// only when the administrator chose the instance-role source. Both read at
// most MaxCredentialBody of each answer, since the SDKs reading them set no
// bound of their own.
func CredentialsFor(key string, cloud ports.CloudSettings, httpClient, metadata *http.Client) Credentials {
	c := Credentials{Key: key, Cloud: cloud, HTTP: boundBodies(httpClient, MaxCredentialBody)}
	if cloud.Source == ports.CredentialInstanceRole {
		c.Metadata = boundBodies(metadata, MaxCredentialBody)
	}
	return c
}

// CloudField names one account setting a cloud protocol shows.
type CloudField string

// The account settings a protocol may declare (ports.CloudSettings).
const (
	FieldRegion               CloudField = "region"
	FieldProject              CloudField = "project"
	FieldProfile              CloudField = "profile"
	FieldRoleARN              CloudField = "role_arn"
	FieldWebIdentityTokenFile CloudField = "web_identity_token_file"
)

// Cloud declares what a cloud protocol's providers are configured with.
type Cloud struct {
	// Fields are the settings shown, in order.
	Fields []CloudField
	// Sources are the credential sources offered, the first the default.
	Sources []ports.CredentialSource
	// KeyFormat says what a key of the pool holds for CredentialKeys
	// ("ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]").
	KeyFormat string
	// BaseURL is the vendor's endpoint for the settings, which the console
	// offers as a new provider's base URL (a private endpoint or a test
	// fake replaces it).
	BaseURL func(c ports.CloudSettings) string
	// Check refuses settings the protocol cannot work with (no region).
	Check func(c ports.CloudSettings) error
}

// Models is how a protocol lists the models an endpoint offers. Which URLs
// are asked is decided by discovery from the configured base, the same way
// for every protocol.
type Models struct {
	// Label names the vendor in listing errors ("OpenAI" gives "OpenAI
	// models 401: …").
	Label string
	// Auth sets the credential and API-version headers of a listing
	// request to u.
	Auth func(h http.Header, apiKey string, u *url.URL)
	// List returns the model ids listed at modelsURL, reading every page
	// with get. It returns get's errors unchanged: discovery tries its next
	// candidate URL when one is a 404.
	List func(ctx context.Context, modelsURL string, get GetJSON) ([]string, error)
	// Discover, when set, lists the models itself (a cloud's own listing
	// API, signed like Sign); Auth and List are then unused. base is the
	// configured base URL.
	Discover func(ctx context.Context, base string, c Credentials) ([]string, error)
}

// GetJSON fetches u with the listing's headers and decodes its JSON body
// into into. Its failures are *llm.ProviderError (a 404 included) or wrap
// the context's error.
type GetJSON func(ctx context.Context, u string, into any) error

// versionTail matches a base path that already ends in a version segment.
var versionTail = regexp.MustCompile(`/v\d+$`)

// StandardPath is the URL rule of a protocol served at a fixed path under a
// /v1 segment: base plus path, without path's leading /v1 when base already
// ends in a version segment (/v1; GLM's /api/paas/v4). A base such as a
// coding-plan subpath (/coding) gets the whole path.
func StandardPath(path string) func(base url.URL, model string) url.URL {
	return func(base url.URL, _ string) url.URL {
		p := path
		if versionTail.MatchString(base.Path) {
			p = strings.TrimPrefix(p, "/v1")
		}
		base.Path += p
		return base
	}
}

// Check reports the first field of p that is not set.
func (p Protocol) Check() error {
	var missing string
	switch {
	case p.Kind == "":
		missing = "Kind"
	case p.Name == "":
		missing = "Name"
	case p.Title == "":
		missing = "Title"
	case p.URL == nil:
		missing = "URL"
	case p.Auth == nil && p.Sign == nil:
		missing = "Auth"
	case len(p.Reserved) == 0:
		missing = "Reserved"
	case p.AppendRequest == nil:
		missing = "AppendRequest"
	case p.NewDecoder == nil:
		missing = "NewDecoder"
	case p.Models.Label == "":
		missing = "Models.Label"
	case p.Models.Discover == nil && p.Models.Auth == nil:
		missing = "Models.Auth"
	case p.Models.Discover == nil && p.Models.List == nil:
		missing = "Models.List"
	case p.Cloud != nil && (len(p.Cloud.Sources) == 0 || p.Cloud.BaseURL == nil):
		missing = "Cloud.Sources or Cloud.BaseURL"
	default:
		return nil
	}
	return fmt.Errorf("protocol %q: %s is not set", p.Kind, missing)
}
