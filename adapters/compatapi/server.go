package compatapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/semaphore"

	"keygate/app/gateway"
	"keygate/domain/budget"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/secretscan"
	"keygate/domain/team"
	"keygate/ports"
)

// MaxBody bounds a request body. A coding agent sends its whole history
// each turn, images inline (base64); 32 MiB admits a long session with
// screenshots while bounding what one request may hold in memory.
const MaxBody = 32 << 20

// Gateway is the use case as the adapter needs it; *gateway.Service
// satisfies it.
type Gateway interface {
	Models(ctx context.Context) ([]gateway.Model, error)
	Resolve(ctx context.Context, name string) (gateway.Model, error)
	Stream(ctx context.Context, c gateway.Call) (ports.ModelStream, gateway.Model, error)
}

// Options are the dependencies of a Server.
type Options struct {
	Gateway Gateway
	// Tokens authenticates gateway tokens. In company mode it is required
	// and every request must carry a token; nil means laptop mode.
	Tokens ports.ProxyAuthenticator
	// Local, in laptop mode, admits a request from this machine as the
	// local user (a token it carries is not needed).
	Local func(r *http.Request) bool
	Log   *zap.Logger
	// Now is the clock of answers' timestamps; nil is time.Now.
	Now func() time.Time
	// MaxHeld bounds the request bytes held at once across every caller
	// (each request's body is held for its whole call); 0 is DefaultMaxHeld.
	MaxHeld int64
	// RecheckInterval is how often, in company mode, the gateway token of a
	// request still running (a long stream) is authenticated again: one
	// revoked, or whose owner was deprovisioned, ends the request within
	// an interval (5 s when <= 0).
	RecheckInterval time.Duration
}

// DefaultMaxHeld is how many request bytes the API holds at once: eight
// bodies at the bound, far more than agents' requests of tens of KiB add
// up to, and a ceiling on what callers that send large bodies at once can
// make the process hold.
const DefaultMaxHeld = 8 * MaxBody

// Server serves the compatible API.
type Server struct {
	o    Options
	held *semaphore.Weighted
}

// New returns a Server over o.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = DefaultMaxHeld
	}
	return &Server{o: o, held: semaphore.NewWeighted(o.MaxHeld)}
}

// Routes are the API's routes as net/http.ServeMux patterns.
func (s *Server) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"POST /v1/messages":              s.handle(anthropicDialect{}, s.messages),
		"POST /v1/messages/count_tokens": s.handle(anthropicDialect{}, s.countTokens),
		"POST /v1/chat/completions":      s.handle(chatDialect{}, s.chat),
		"POST /v1/responses":             s.handle(responsesDialect{}, s.responses),
		"GET /v1/models":                 http.HandlerFunc(s.models),
	}
}

// dialect writes refusals in one protocol's error shape.
type dialect interface {
	// writeError answers with status and the protocol's error body.
	writeError(w http.ResponseWriter, status int, kind errKind, msg string)
}

// errKind is the class of a refusal, named per protocol by each dialect.
type errKind uint8

const (
	errAuth errKind = iota + 1
	errPermission
	errNotFound
	errInvalid
	errRateLimit
	errOverloaded
	errServer
)

// handle authenticates the caller and reads the bounded body before h.
func (s *Server) handle(d dialect, h func(ctx context.Context, w http.ResponseWriter, r *http.Request, d dialect, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, status, msg := s.authenticate(r)
		if status != 0 {
			kind := errAuth
			if status == http.StatusForbidden {
				kind = errPermission
			} else if status >= 500 {
				kind = errServer
			}
			d.writeError(w, status, kind, msg)
			return
		}
		// A body is held until its call ends: it takes its declared size
		// (the bound when it declares none) from the bytes held at once, or
		// is refused as the API being busy, before anything is read.
		weight := r.ContentLength
		if weight < 0 || weight > MaxBody {
			weight = MaxBody
		}
		if !s.held.TryAcquire(weight) {
			d.writeError(w, http.StatusServiceUnavailable, errOverloaded, "Keygate holds too many large requests at once; retry shortly")
			return
		}
		defer s.held.Release(weight)
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				d.writeError(w, http.StatusRequestEntityTooLarge, errInvalid, fmt.Sprintf("request body over %d bytes", MaxBody))
				return
			}
			d.writeError(w, http.StatusBadRequest, errInvalid, "read request body: "+err.Error())
			return
		}
		ctx := identity.NewContext(r.Context(), who)
		if s.o.Tokens != nil {
			var stop context.CancelFunc
			ctx, stop = s.recheck(ctx, credential(r))
			defer stop()
		}
		h(ctx, w, r, d, body)
	})
}

// recheck returns ctx cancelled as soon as token no longer authenticates
// (revoked, expired, its owner deprovisioned), checked every
// RecheckInterval until stop is called. A check that fails for another
// reason (the store unreachable) leaves the request running.
func (s *Server) recheck(ctx context.Context, token string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	every := s.o.RecheckInterval
	if every <= 0 {
		every = 5 * time.Second
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			actx, done := context.WithTimeout(ctx, every)
			_, err := s.o.Tokens.Authenticate(actx, token)
			done()
			if errors.Is(err, ports.ErrNotAuthorized) {
				s.o.Log.Info("ending an API request whose gateway token no longer authenticates")
				cancel()
				return
			}
		}
	}()
	return ctx, cancel
}

// authenticate returns the caller's identity, or the status and message
// of a refusal.
func (s *Server) authenticate(r *http.Request) (identity.Identity, int, string) {
	token := credential(r)
	if s.o.Tokens == nil {
		if s.o.Local == nil || !s.o.Local(r) {
			return identity.Identity{}, http.StatusForbidden, "Keygate on a laptop serves its API to this machine only"
		}
		return identity.Local, 0, ""
	}
	if token == "" {
		return identity.Identity{}, http.StatusUnauthorized, "missing gateway token: send your Keygate gateway token as Authorization: Bearer <token> or x-api-key (create one under Personal gateway tokens on the console's Access page)"
	}
	id, err := s.o.Tokens.Authenticate(r.Context(), token)
	if errors.Is(err, ports.ErrNotAuthorized) {
		return identity.Identity{}, http.StatusUnauthorized, "invalid gateway token: it is unknown, revoked or expired; create a new one on the console's Access page"
	}
	if err != nil {
		s.o.Log.Error("authenticate api caller", zap.Error(err))
		return identity.Identity{}, http.StatusServiceUnavailable, "Keygate could not check the gateway token; try again"
	}
	return id, 0, ""
}

// credential is the token of Authorization: Bearer, else x-api-key.
func credential(r *http.Request) string {
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(r.Header.Get("x-api-key"))
}

// newID is a random id for an answer and its call.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// clientOf names the caller from its user agent: the coding agents Keygate
// knows by name, else the product token (bounded, printable).
func clientOf(r *http.Request) string {
	ua := r.Header.Get("User-Agent")
	switch {
	case strings.HasPrefix(ua, "claude-cli/"), strings.HasPrefix(ua, "claude-code/"):
		return "claude-code"
	case strings.HasPrefix(ua, "codex"):
		return "codex"
	case strings.Contains(strings.ToLower(ua), "opencode"):
		return "opencode"
	}
	product, _, _ := strings.Cut(ua, "/")
	product, _, _ = strings.Cut(product, " ")
	var b strings.Builder
	for _, c := range product {
		if b.Len() >= 40 {
			break
		}
		if c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

// sessionOf is the caller's session or conversation id: Claude Code's
// session header, the thread of Codex's turn metadata, else fallback (the
// body's own key, such as OpenAI's prompt_cache_key). Bounded to 200 bytes.
func sessionOf(r *http.Request, fallback string) string {
	s := r.Header.Get("X-Claude-Code-Session-Id")
	if s == "" {
		if meta := r.Header.Get("x-codex-turn-metadata"); meta != "" && len(meta) < 8<<10 {
			var v map[string]any
			if json.Unmarshal([]byte(meta), &v) == nil {
				for _, k := range []string{"thread_id", "threadId", "conversation_id", "session_id", "sessionId"} {
					if t, ok := v[k].(string); ok && t != "" {
						s = t
						break
					}
				}
			}
		}
	}
	if s == "" {
		s = r.Header.Get("session_id")
	}
	if s == "" {
		s = fallback
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// refusal maps a call's error to a status, kind and the message the caller
// sees.
func refusal(err error) (int, errKind, string) {
	switch {
	case errors.Is(err, gateway.ErrUnknownModel):
		return http.StatusNotFound, errNotFound, err.Error()
	case errors.Is(err, gateway.ErrNoCaller), errors.Is(err, identity.ErrNoUser):
		return http.StatusUnauthorized, errAuth, "no caller identity"
	case errors.Is(err, ports.ErrFillInModel):
		return http.StatusBadRequest, errInvalid, err.Error()
	case errors.Is(err, team.ErrNotAllowed):
		return http.StatusForbidden, errPermission, err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 499, errServer, "request cancelled"
	}
	if status, kind, msg, ok := providerRefusal(err); ok {
		return status, kind, msg
	}
	// The secret guard's refusal names the kinds of secret, never a value:
	// a policy refusal, answered like a permission the caller lacks.
	var blocked *secretscan.BlockedError
	if errors.As(err, &blocked) {
		return http.StatusForbidden, errPermission, blocked.Error()
	}
	var exceeded *budget.ExceededError
	if errors.As(err, &exceeded) {
		return http.StatusTooManyRequests, errRateLimit, exceeded.Error()
	}
	return http.StatusInternalServerError, errServer, "Keygate could not make the call: " + err.Error()
}

// providerRefusal maps a provider's failure: the caller's request at
// fault keeps a 4xx, Keygate's side (its keys, the upstream) is a 5xx.
func providerRefusal(err error) (int, errKind, string, bool) {
	var perr *llm.ProviderError
	if !errors.As(err, &perr) {
		return 0, 0, "", false
	}
	msg := perr.Message
	switch perr.Class {
	case llm.ErrorRateLimit:
		return http.StatusTooManyRequests, errRateLimit, msg, true
	case llm.ErrorBadRequest, llm.ErrorContextOverflow, llm.ErrorContentFilter, llm.ErrorRefusal:
		return http.StatusBadRequest, errInvalid, msg, true
	case llm.ErrorAuthorization:
		return http.StatusBadGateway, errServer, "the model's provider refused Keygate's key: " + msg, true
	default:
		return http.StatusServiceUnavailable, errOverloaded, msg, true
	}
}
