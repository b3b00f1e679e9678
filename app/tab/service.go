package tab

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/tab"
	"keygate/ports"
)

// ErrOff means no Tab model is configured: Keygate serves no Tab and the
// client's request goes elsewhere (or gets no suggestion).
var ErrOff = errors.New("no tab model configured")

// ErrNoCaller means the request carried no identity: a prediction is
// always someone's, and its caches and fates are scoped by user.
var ErrNoCaller = fmt.Errorf("tab request without a caller: %w", identity.ErrNoUser)

// Endpoints resolves a model or alias id to a routed endpoint;
// *app/control.Catalog satisfies it.
type Endpoints interface {
	Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error)
}

// Options are the dependencies and settings of a Service.
type Options struct {
	Provider  ports.ModelProvider
	Endpoints Endpoints
	// Protocols say whether an endpoint's kind is a fill-in protocol.
	Protocols ports.ProviderProtocols
	// Model returns the configured Tab model or alias id; "" means Keygate
	// serves no Tab.
	Model func(ctx context.Context) (string, error)
	Fates ports.SuggestionFates
	Log   *zap.Logger
	// FillBudget and EditBudget bound the prompts; zero values take the
	// domain's defaults.
	FillBudget tab.FillBudget
	EditBudget tab.EditBudget
	// FillTokens and EditTokens cap a fill-in and a chat answer; 0 takes
	// 256 and 1,024 (a chat model rewrites a region of up to 4 KiB).
	FillTokens, EditTokens int
	// Limits bound what the service remembers; zero takes DefaultLimits.
	Limits Limits
	// Now is the clock; nil for time.Now.
	Now func() time.Time
}

// endpointFresh is how long a resolved Tab endpoint is reused. Resolving
// reads the model (and an alias's first target) from the store, and Tab
// asks on nearly every keystroke pause; the Tab model setting itself is
// answered from memory for as long. The router still resolves each
// attempt's target and key itself, so a drained target or a resting key
// takes effect at once.
const endpointFresh = 2 * time.Second

// resolved is the endpoint of a Tab model as resolved at a time.
type resolved struct {
	model string
	ep    ports.Endpoint
	cfg   ports.ModelConfig
	at    time.Time
}

// endpoint resolves model, from memory while fresh.
func (s *Service) endpoint(ctx context.Context, model string) (ports.Endpoint, ports.ModelConfig, error) {
	now := s.o.Now()
	if r := s.resolved.Load(); r != nil && r.model == model && now.Sub(r.at) < endpointFresh {
		return r.ep, r.cfg, nil
	}
	ep, cfg, err := s.o.Endpoints.Endpoint(ctx, model)
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	s.resolved.Store(&resolved{model: model, ep: ep, cfg: cfg, at: now})
	return ep, cfg, nil
}

// Service predicts the next edit of a Cursor Tab request on the
// organisation's own model. It is safe for concurrent use.
type Service struct {
	o        Options
	mem      *memory
	resolved atomic.Pointer[resolved]
}

// New returns a Service over o.
func New(o Options) *Service {
	if o.FillBudget == (tab.FillBudget{}) {
		o.FillBudget = tab.DefaultFillBudget
	}
	if o.EditBudget == (tab.EditBudget{}) {
		o.EditBudget = tab.DefaultEditBudget
	}
	if o.FillTokens <= 0 {
		o.FillTokens = 256
	}
	if o.EditTokens <= 0 {
		o.EditTokens = 1024
	}
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{o: o, mem: newMemory(o.Limits)}
}

// Model returns the Tab model or alias id, "" when Tab is off.
func (s *Service) Model(ctx context.Context) (string, error) {
	id, err := s.o.Model(ctx)
	if err != nil {
		return "", fmt.Errorf("read tab model: %w", err)
	}
	return id, nil
}

// Predict answers one Tab request: it streams the prediction's events to
// emit as they become usable. A request that types through the previous
// suggestion is answered from it without a model call; otherwise one
// model call is made, with the prompt of the endpoint's protocol style,
// and cancelling ctx (the client typed again) cancels it at once. It
// returns ErrOff when no Tab model is configured, ErrNoCaller without an
// identity, an error of emit as is, and model errors wrapped. A request
// whose cursor is outside its file gets no events.
func (s *Service) Predict(ctx context.Context, in tab.Input, emit func(tab.Event) error) error {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return ErrNoCaller
	}
	model, err := s.Model(ctx)
	if err != nil {
		return err
	}
	if model == "" {
		return ErrOff
	}
	rejected := s.mem.rejectedIn(who.UserID, in.Path)
	if o, ok := s.mem.offer(who.UserID, in.Path); ok {
		if e, rest, ok := o.Continue(in); ok && !contains(rejected, e) {
			s.mem.remember(who.UserID, in.RequestID, in, []tab.Edit{e}, rest, true)
			return emitAll(emit, tab.EditEvents(e))
		}
	}
	ep, cfg, err := s.endpoint(ctx, model)
	if err != nil {
		return fmt.Errorf("resolve tab model %s: %w", model, err)
	}
	req, dec, ok := s.prompt(in, ep.Kind, cfg.ModelID, tab.DecodeOptions{Rejected: rejected})
	if !ok {
		return nil
	}
	call := ports.ModelCall{CallID: "tab:" + in.RequestID, RunID: in.RequestID, Kind: callrecord.KindTab,
		Endpoint: ep, Request: req}
	if err := s.call(ctx, call, dec, emit); err != nil {
		return err
	}
	edits := dec.Edits()
	o, hasOffer := tab.NewOffer(in, edits)
	s.mem.remember(who.UserID, in.RequestID, in, edits, o, hasOffer)
	return nil
}

// prompt builds the request and decoder of in for a model of kind.
func (s *Service) prompt(in tab.Input, kind llm.ProviderKind, upstream string, do tab.DecodeOptions) (llm.Request, tab.Decoder, bool) {
	if s.fillIn(kind) {
		p, ok := tab.NewFillPrompt(in, s.o.FillBudget)
		if !ok {
			return llm.Request{}, nil, false
		}
		zero := 0.0
		return llm.Request{Model: upstream, PromptName: "tab", MaxOutputTokens: s.o.FillTokens,
			FillIn: &llm.FillIn{Prefix: p.Prefix, Suffix: p.Suffix, Temperature: &zero}}, tab.NewFillDecoder(p, do), true
	}
	p, ok := tab.NewEditPrompt(in, s.o.EditBudget)
	if !ok {
		return llm.Request{}, nil, false
	}
	return llm.Request{Model: upstream, PromptName: "tab", Instructions: p.System, MaxOutputTokens: s.o.EditTokens,
		Messages: []llm.Message{{ID: "tab", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: p.User}}}},
	}, tab.NewEditDecoder(p, lineDiff, do), true
}

// fillIn reports whether kind is a fill-in protocol.
func (s *Service) fillIn(kind llm.ProviderKind) bool {
	for _, p := range s.o.Protocols.Protocols() {
		if p.Kind == kind {
			return p.FillIn
		}
	}
	return false
}

// call makes the model call and streams the decoder's events to emit. It
// stops reading once the decoder has enough or emit fails, and the
// deferred cancel closes the connection.
func (s *Service) call(ctx context.Context, call ports.ModelCall, dec tab.Decoder, emit func(tab.Event) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := s.o.Provider.Stream(ctx, call)
	if err != nil {
		return fmt.Errorf("tab prediction %s: %w", call.RunID, err)
	}
	defer func() { _ = st.Close() }()
	finish := llm.FinishReason(0)
	for !dec.Enough() && st.Next() {
		ev := st.Event()
		switch ev.Kind {
		case llm.EventTextDelta:
			if err := emitAll(emit, dec.Feed(ev.Text)); err != nil {
				return err
			}
		case llm.EventDone:
			finish = ev.Finish
		default:
		}
	}
	if !dec.Enough() {
		if err := st.Err(); err != nil {
			return fmt.Errorf("tab prediction %s: %w", call.RunID, err)
		}
		if finish == 0 {
			return fmt.Errorf("tab prediction %s: the stream ended without done", call.RunID)
		}
	}
	cancel()
	truncated := finish == llm.FinishLength || finish == llm.FinishContentFilter
	s.o.Log.Debug("tab prediction", zap.String("request_id", call.RunID), zap.String("model", call.Request.Model),
		zap.Stringer("finish", finish))
	return emitAll(emit, dec.Finish(truncated))
}

// RecordFate stores what the caller did with the suggestion of requestID
// and, for a rejection, remembers its edits so that the same suggestion
// is not offered again right away.
func (s *Service) RecordFate(ctx context.Context, requestID string, f tab.Fate) error {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return ErrNoCaller
	}
	if err := s.o.Fates.RecordFate(ctx, ports.SuggestionFate{UserID: who.UserID, RequestID: requestID, Fate: f}); err != nil {
		return fmt.Errorf("record tab fate of %s: %w", requestID, err)
	}
	if f == tab.FateRejected {
		s.mem.reject(who.UserID, requestID)
	}
	return nil
}

func emitAll(emit func(tab.Event) error, evs []tab.Event) error {
	for _, ev := range evs {
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

func contains(es []tab.Edit, e tab.Edit) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}
