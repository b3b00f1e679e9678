package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// ErrUnknownModel means the model a caller named is no enabled model or
// alias; the error's text names the ones it may use.
var ErrUnknownModel = errors.New("unknown model")

// ErrNoCaller means the request carried no identity: every call is
// someone's, for budgets, tenancy and call records.
var ErrNoCaller = fmt.Errorf("api call without a caller: %w", identity.ErrNoUser)

// Endpoints resolves a model or alias id to a routed endpoint;
// *app/control.Catalog satisfies it.
type Endpoints interface {
	Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error)
}

// Published lists the models and aliases callers may use;
// *app/control.Publishing satisfies it.
type Published interface {
	Published(ctx context.Context) ([]ports.ModelConfig, error)
}

// Options are the dependencies of a Service.
type Options struct {
	Provider  ports.ModelProvider
	Endpoints Endpoints
	Published Published
	// Listed, when set, is what /v1/models shows the caller (their teams'
	// models); Published still resolves names, so a model outside the
	// caller's list is refused by the provider chain with a message
	// saying why (403) rather than reported unknown.
	Listed Published
	Log    *zap.Logger
}

// Service serves the compatible API's model calls. It is safe for
// concurrent use.
type Service struct{ o Options }

// New returns a Service over o.
func New(o Options) *Service {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Listed == nil {
		o.Listed = o.Published
	}
	return &Service{o: o}
}

// Model is one model or alias a caller may name.
type Model struct {
	// ID is the picker id; Name the display name Cursor's picker shows.
	ID, Name string
	// Provider names who serves it (its provider, or the alias's first
	// target's).
	Provider string
	// ContextWindow is the model's context window in tokens; 0 unknown.
	ContextWindow int64
	// Created is when it was configured.
	Created int64
}

// Models are the enabled models and aliases that can hold a conversation
// (fill-in-the-middle models are left out), in publishing order.
func (s *Service) Models(ctx context.Context) ([]Model, error) {
	return s.models(ctx, s.o.Listed)
}

// models lists src as Models does.
func (s *Service) models(ctx context.Context, src Published) ([]Model, error) {
	cfgs, err := src.Published(ctx)
	if err != nil {
		return nil, fmt.Errorf("list api models: %w", err)
	}
	out := make([]Model, 0, len(cfgs))
	for _, c := range cfgs {
		name := c.DisplayName
		if name == "" {
			name = c.ID
		}
		m := Model{ID: c.ID, Name: name, Provider: c.ProviderID, ContextWindow: c.ContextWindowTokens}
		if !c.CreatedAt.IsZero() {
			m.Created = c.CreatedAt.Unix()
		}
		out = append(out, m)
	}
	return out, nil
}

// Resolve finds the model or alias name stands for: its id, else its
// display name (case aside). Anything else is ErrUnknownModel naming the
// available ones.
func (s *Service) Resolve(ctx context.Context, name string) (Model, error) {
	models, err := s.models(ctx, s.o.Published)
	if err != nil {
		return Model{}, err
	}
	for _, m := range models {
		if m.ID == name {
			return m, nil
		}
	}
	for _, m := range models {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	// The names offered are the caller's list (Listed).
	if models, err = s.Models(ctx); err != nil {
		return Model{}, err
	}
	names := make([]string, 0, len(models))
	for _, m := range models {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	avail := "none is configured"
	if len(names) > 0 {
		avail = "available: " + strings.Join(names, ", ")
	}
	return Model{}, fmt.Errorf("%w %q: %s", ErrUnknownModel, name, avail)
}

// Call is one model call of the compatible API.
type Call struct {
	// Model is the model or alias the caller named (id or display name).
	Model string
	// Request is what to ask; its Model is replaced by the target's.
	Request llm.Request
	// RequestID identifies the call (the HTTP request's id).
	RequestID string
	// Session is the caller's conversation or session id; calls of one
	// session stay on one target of an alias while it is healthy. Empty
	// for none.
	Session string
	// Client names the caller (claude-code, codex, opencode, or the user
	// agent's product token).
	Client string
}

// Stream makes the call through the provider chain as the caller on ctx:
// resolved by name, routed (the session's target first), counted against
// the caller's budgets and recorded as kind api with the client's name
// (call id "api:<request id>"). Errors: ErrNoCaller,
// ErrUnknownModel, a budget's refusal, provider errors as the chain
// returns them.
func (s *Service) Stream(ctx context.Context, c Call) (ports.ModelStream, Model, error) {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return nil, Model{}, ErrNoCaller
	}
	m, err := s.Resolve(ctx, c.Model)
	if err != nil {
		return nil, Model{}, err
	}
	ep, cfg, err := s.o.Endpoints.Endpoint(ctx, m.ID)
	if err != nil {
		return nil, Model{}, fmt.Errorf("resolve model %s: %w", m.ID, err)
	}
	req := c.Request
	req.Model = cfg.ModelID
	if cfg.MaxOutputTokens > 0 && (req.MaxOutputTokens == 0 || int64(req.MaxOutputTokens) > cfg.MaxOutputTokens) {
		req.MaxOutputTokens = int(cfg.MaxOutputTokens) // a translated call keeps to the model's cap
	}
	if req.CacheKey == "" && c.Session != "" {
		req.CacheKey = c.Session
	}
	client := c.Client
	if client == "" {
		client = "unknown"
	}
	call := ports.ModelCall{CallID: "api:" + c.RequestID, RunID: c.RequestID,
		ConversationID: conversationOf(who.UserID, c.Session), Kind: callrecord.KindAPI, Client: client,
		Endpoint: ep, Request: req}
	st, err := s.o.Provider.Stream(ctx, call)
	if err != nil {
		return nil, m, fmt.Errorf("api call %s: %w", c.RequestID, err)
	}
	return st, m, nil
}

// conversationOf is the conversation id a session's calls are recorded
// and kept sticky under: the caller's own (two users' sessions of the same
// id never share a target's affinity), empty without a session.
func conversationOf(userID, session string) string {
	if session == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(userID + "\x00" + session))
	return "api-" + hex.EncodeToString(sum[:12])
}
