package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ ports.ModelProvider = (*Client)(nil)

// sessionTemplate in header values and extra parameters is replaced by the
// Cursor conversation id.
const sessionTemplate = "{{SessionId}}"

// maxErrorBody bounds how much of a non-2xx body is read.
const maxErrorBody = failure.MaxMessage

// Options configure a Client.
type Options struct {
	// HTTP sends requests; the composition root passes the outbound
	// policy's client (adapters/egress: guarded dials, no redirect to
	// another origin). It must have no overall timeout: the caller's context
	// and IdleTimeout bound each call. nil uses a plain client.
	HTTP *http.Client
	// Recorder receives one record per call; nil records nothing.
	Recorder ports.CallRecorder
	// Logger reports recording failures; nil logs nothing.
	Logger *zap.Logger
	// IdleTimeout fails a call whose connection delivers no bytes for this
	// long, including the wait for headers, as a transient error. 0 disables
	// the watchdog.
	IdleTimeout time.Duration
	// Detailed is read once per call: true records the request and the raw
	// response chunks too. nil means never.
	Detailed func() bool
	// Now is the clock of call records; nil uses time.Now.
	Now func() time.Time
	// Protocols are the protocols calls may use; nil means Builtin.
	Protocols *Registry
	// Metadata is the client that may reach the cloud's instance metadata
	// service (egress.Policy.InstanceMetadataClient); a signing protocol
	// gets it only for a provider whose credential source is the instance
	// role. nil: that source cannot fetch credentials.
	Metadata *http.Client
}

// Client streams model calls over HTTP. It is safe for concurrent use.
type Client struct {
	protocols *Registry
	http      *http.Client
	metadata  *http.Client
	recorder  ports.CallRecorder
	log       *zap.Logger
	idle      time.Duration
	detailed  func() bool
	now       func() time.Time
}

// New returns a Client.
func New(o Options) *Client {
	c := &Client{protocols: o.Protocols, http: o.HTTP, metadata: o.Metadata, recorder: o.Recorder, log: o.Logger, idle: o.IdleTimeout,
		detailed: o.Detailed, now: o.Now}
	if c.protocols == nil {
		c.protocols = builtin
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.log == nil {
		c.log = zap.NewNop()
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Stream makes one HTTP attempt for call; see ports.ModelProvider.
func (c *Client) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	ep := call.Endpoint
	p, err := c.protocols.Lookup(ep.Kind)
	if err != nil {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Message: err.Error(), Err: err}
	}
	q := compat.Detect(call.Request.Model, ep.URL)
	extras, err := wire.ParseExtras([]byte(template(ep.ExtraParams, call.ConversationID, true)), c.protocols.reserved)
	if err != nil {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "model configuration: " + err.Error(), Err: err}
	}
	body, err := p.AppendRequest(nil, call.Request, protocol.RequestOptions{Extras: extras, Quirks: q})
	if err != nil {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "build request: " + err.Error(), Err: err}
	}

	rec := c.startRecording(ctx, call, int64(len(body)))
	reqCtx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		cancel(nil)
		perr := &llm.ProviderError{Class: llm.ErrorBadRequest, Message: "build request: invalid URL " + redactURL(ep.URL, ep.APIKey)}
		rec.fail(c.now(), perr)
		return nil, perr
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if p.Accept != "" {
		req.Header.Set("Accept", p.Accept)
	}
	if p.Auth != nil {
		p.Auth(req.Header, ep.APIKey, q)
	}
	for name, value := range ep.Headers {
		req.Header.Set(name, template([]byte(value), call.ConversationID, false))
	}
	if p.Headers != nil {
		p.Headers(req.Header, call.Request)
	}
	if p.Sign != nil {
		if err := p.Sign(reqCtx, req, body, c.credentials(ep)); err != nil {
			cancel(nil)
			e := signError(p.Name, err, ep.APIKey)
			rec.end(c.now(), e)
			return nil, e
		}
	}
	rec.request(req, body, ep.APIKey, ep.Headers)

	dog := newWatchdog(c.idle, cancel)
	cause := func() error { return context.Cause(reqCtx) }
	resp, err := c.http.Do(req)
	if err != nil {
		dog.stop()
		cancel(nil)
		e := c.transportError(p.Name, "request", err, cause, ctx.Err, ep.APIKey)
		rec.end(c.now(), e)
		return nil, e
	}
	rec.headers(c.now(), resp.StatusCode)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel(nil)
		defer dog.stop()
		defer resp.Body.Close()
		e := c.statusError(p.Name, resp, q, ep.APIKey, cause, ctx.Err)
		rec.end(c.now(), e)
		return nil, e
	}
	m := &meter{r: resp.Body, dog: dog, rec: rec}
	var events protocol.Events = sse.NewReader(m, 0)
	if p.Frames != nil {
		events = p.Frames(m)
	}
	return &stream{
		body: resp.Body, reader: events, dec: p.NewDecoder(), label: p.Name,
		cancel: cancel, cause: cause, parentErr: ctx.Err, dog: dog, rec: rec, meter: m,
		apiKey: ep.APIKey, now: c.now,
	}, nil
}

// statusError reads a bounded error body under the call's context and
// classifies the status.
func (c *Client) statusError(label string, resp *http.Response, q compat.Quirks, apiKey string,
	cause func() error, parentErr func() error) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil && cause() != nil {
		return c.transportError(label, "error body read", err, cause, parentErr, apiKey)
	}
	perr := failure.Status(label, resp.StatusCode, []byte(scrub(string(raw), apiKey)))
	if q.Kimi && resp.StatusCode == http.StatusBadRequest && compat.KimiRetryable(string(raw)) {
		perr.Class = llm.ErrorTransient
	}
	perr.RetryAfter = failure.RetryAfter(resp.Header, c.now())
	return perr
}

// transportError classifies a failed request or body read: the caller's
// cancellation stays a context error, a watchdog stall is transient with the
// idle duration, a request the outbound policy refused is a bad request
// (retrying cannot help), anything else is a transient transport failure.
func (c *Client) transportError(label, stage string, err error, cause func() error, parentErr func() error, apiKey string) error {
	var idle *idleError
	if errors.As(cause(), &idle) {
		return failure.Transient(label, idle.Error(), idle)
	}
	if perr := parentErr(); perr != nil {
		return fmt.Errorf("provider %s: %w", stage, perr)
	}
	if refused := failure.Refused(label, err); refused != nil {
		return refused
	}
	return failure.Transient(label, stage+" error: "+scrub(err.Error(), apiKey), redactErrURL(err, apiKey))
}

// redactErrURL removes credentials from the URL a transport error carries,
// so that a ProviderError's cause can be logged or recorded safely.
func redactErrURL(err error, apiKey string) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	return &url.Error{Op: ue.Op, URL: redactURL(ue.URL, apiKey), Err: ue.Err}
}

// template replaces the session template; in JSON the id is escaped as the
// inside of a string.
func template(b []byte, conversationID string, jsonString bool) string {
	s := string(b)
	if !strings.Contains(s, sessionTemplate) {
		return s
	}
	id := conversationID
	if jsonString {
		q := wire.AppendString(nil, conversationID)
		id = string(q[1 : len(q)-1])
	}
	return strings.ReplaceAll(s, sessionTemplate, id)
}

// credentials are what a signing protocol authorises ep's call with; the
// metadata client only for the instance-role source.
func (c *Client) credentials(ep ports.Endpoint) protocol.Credentials {
	return protocol.CredentialsFor(ep.APIKey, ep.Cloud, c.http, c.metadata)
}

// signError is a failed Sign as a provider error whose text names no
// secret: a credential that cannot be had is the administrator's to fix.
func signError(label string, err error, apiKey string) error {
	var perr *llm.ProviderError
	if errors.As(err, &perr) {
		perr.Message = scrub(perr.Message, apiKey)
		return perr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("provider sign: %w", err)
	}
	msg := label + " credentials: " + scrub(err.Error(), apiKey)
	return &llm.ProviderError{Class: llm.ErrorAuthorization, Message: msg}
}
