package routing

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"time"

	"go.uber.org/zap"

	"keygate/domain/budget"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/ports"
)

// Catalog is what the router reads of the configuration.
type Catalog interface {
	// Route returns what a routed id stands for: an alias's targets, or a
	// model as its own only target. An unknown id is ports.ErrNotFound.
	Route(ctx context.Context, id string) (routing.Route, error)
	// Target resolves one target for a call, with the means to open one of
	// its keys: open returns the endpoint that key is sent to, and refuses
	// a key saved for another origin than the target's.
	Target(ctx context.Context, modelID string) (t routing.Target, open func(keyID string) (ports.Endpoint, error), err error)
}

// KeyDisabler takes a key out of its provider's pool; the composition
// root hands the audited provider store, so each time is audited.
type KeyDisabler interface {
	SetKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string) error
}

// Options are the router's dependencies and settings.
type Options struct {
	// Next makes each attempt (the provider client, with its decorators).
	Next    ports.ModelProvider
	Catalog Catalog
	Health  ports.RouteHealth
	// Affinity keeps each conversation on its alias's target.
	Affinity ports.RouteAffinity
	Keys     KeyDisabler
	// Windows counts each target's requests and tokens per minute for its
	// limits; nil enforces none.
	Windows ports.RateWindows
	Clock   ports.Clock
	// KeyRest is how long a refused key rests when neither the provider
	// (Retry-After) nor its configuration says; 0 means 60 s.
	KeyRest time.Duration
	// TargetRest is how long a failed target rests without Retry-After;
	// 0 means 30 s.
	TargetRest time.Duration
	Logger     *zap.Logger
}

// Router routes calls; see the package documentation. It is safe for
// concurrent use.
type Router struct {
	o Options
}

var _ ports.ModelProvider = (*Router)(nil)

// New returns a router.
func New(o Options) *Router {
	if o.KeyRest <= 0 {
		o.KeyRest = 60 * time.Second
	}
	if o.TargetRest <= 0 {
		o.TargetRest = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Router{o: o}
}

// errNoOutput marks an attempt that gave no first output in time.
var errNoOutput = errors.New("no first output in time")

// Stream implements ports.ModelProvider. A call whose endpoint names no
// route goes to the next provider as it is.
func (r *Router) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	if call.Endpoint.Route == "" {
		return r.o.Next.Stream(ctx, call)
	}
	route, err := r.o.Catalog.Route(ctx, call.Endpoint.Route)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, badRequest(fmt.Sprintf("model %s is no longer configured in Keygate; pick another model", call.Endpoint.Route), err)
	}
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", call.Endpoint.Route, err)
	}
	c := &callRoute{r: r, call: call, route: route, seed: seed(call.ConversationID)}
	return c.run(ctx)
}

// callRoute is one engine call on its way through the route's targets.
type callRoute struct {
	r     *Router
	call  ports.ModelCall
	route routing.Route
	seed  uint64
	// attempts made so far, and what the last one failed with.
	attempts int
	lastErr  error
	// failedAt is the target of the previous attempt that failed and
	// failedWith what happened there, for the cause of a move.
	failedAt, failedWith string
}

// failed notes that target failed before the first token with why.
func (c *callRoute) failed(target, why string) {
	c.failedAt, c.failedWith = target, "failed before the first token ("+why+")"
}

func (c *callRoute) run(ctx context.Context) (ports.ModelStream, error) {
	multi := len(c.route.Targets) > 1
	sticky, health := "", map[string]routing.Health{}
	if multi {
		var err error
		if sticky, err = c.sticky(ctx); err != nil {
			return nil, err
		}
		subjects := make([]string, len(c.route.Targets))
		for i, t := range c.route.Targets {
			subjects[i] = routing.TargetSubject(t.ModelID)
		}
		if health, err = c.r.o.Health.Health(ctx, subjects); err != nil {
			return nil, fmt.Errorf("route %s: %w", c.route.ID, err)
		}
	}
	plan := routing.PlanTargets(c.route, health, sticky, c.r.o.Clock.Now(), nil, c.draw())
	if len(plan.Targets) == 0 {
		return nil, badRequest(fmt.Sprintf("every target of %s is drained; an administrator must undrain one", c.route.ID), nil)
	}
	for i, ref := range plan.Targets {
		moved := ""
		switch {
		case c.failedAt != "":
			moved = fmt.Sprintf("failover: target %s %s", c.failedAt, c.failedWith)
		case i == 0:
			moved = plan.Moved
		}
		// The first-token timeout moves a call on only while another
		// target is left to move to.
		timeout := time.Duration(0)
		if i < len(plan.Targets)-1 {
			timeout = c.route.FirstTokenTimeout
		}
		stream, next, err := c.target(ctx, ref, health[routing.TargetSubject(ref.ModelID)], moved, timeout)
		if err == nil {
			if multi && ref.ModelID != sticky {
				c.setSticky(ctx, ref.ModelID)
			}
			return stream, nil
		}
		c.lastErr = err
		if !next || ctx.Err() != nil {
			return nil, err
		}
	}
	return nil, c.lastErr
}

// target tries the keys of one target in pool order. next reports whether
// the call may go on to the next target.
func (c *callRoute) target(ctx context.Context, ref routing.TargetRef, th routing.Health, moved string, timeout time.Duration) (ports.ModelStream, bool, error) {
	t, open, err := c.r.o.Catalog.Target(ctx, ref.ModelID)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, true, badRequest(fmt.Sprintf("target %s of %s is no longer configured", ref.ModelID, c.route.ID), err)
	}
	if err != nil {
		return nil, false, fmt.Errorf("target %s: %w", ref.ModelID, err)
	}
	if len(t.Keys) == 0 {
		return nil, true, badRequest(fmt.Sprintf("provider %s of model %s has no enabled API key; an administrator must add or enable one",
			t.ProviderName, t.ModelID), nil)
	}
	if err := c.admit(ctx, t); err != nil {
		return nil, true, err
	}
	subjects := make([]string, len(t.Keys))
	for i, k := range t.Keys {
		subjects[i] = routing.KeySubject(k.ID)
	}
	kh, err := c.r.o.Health.Health(ctx, subjects)
	if err != nil {
		return nil, false, fmt.Errorf("target %s: %w", ref.ModelID, err)
	}
	keyRest := t.KeyRest
	if keyRest <= 0 {
		keyRest = c.r.o.KeyRest
	}
	var lastErr error
	for _, k := range routing.KeyOrder(t.Keys, t.KeyStrategy, kh, c.r.o.Clock.Now(), c.seed, c.draw()) {
		ep, err := open(k.ID)
		if err != nil {
			// A key that cannot be opened, or was saved for another
			// origin, is never sent; the next key may still serve.
			c.r.o.Logger.Warn("provider key not usable", zap.String("model", t.ModelID), zap.String("key", k.ID), zap.Error(err))
			lastErr = badRequest(err.Error(), err)
			continue
		}
		stream, err := c.attempt(ctx, t, k.ID, ep, moved, timeout)
		if err == nil && c.limited(t) {
			stream.done = c.countTokens(ctx, t)
		}
		if err == nil {
			c.recovered(ctx, routing.KeySubject(k.ID), kh[routing.KeySubject(k.ID)])
			c.recovered(ctx, routing.TargetSubject(t.ModelID), th)
			return stream, false, nil
		}
		lastErr = err
		var perr *llm.ProviderError
		if ctx.Err() != nil || !errors.As(err, &perr) {
			return nil, false, err
		}
		v := routing.Judge(perr, keyRest, c.r.o.TargetRest)
		now := c.r.o.Clock.Now()
		if v.CoolKey {
			c.keyFailed(ctx, t, k.ID, routing.Failure{At: now, Message: perr.Brief(), Auth: v.Auth, CoolUntil: now.Add(v.Rest)})
		}
		if v.CoolTarget {
			c.rest(ctx, routing.TargetSubject(t.ModelID), routing.Failure{At: now, Message: perr.Brief(), CoolUntil: now.Add(v.Rest)})
		}
		if v.NextKey {
			continue
		}
		if v.NextTarget {
			c.failed(t.ModelID, perr.Brief())
		}
		return nil, v.NextTarget, err
	}
	why := "every key failed"
	var perr *llm.ProviderError
	if errors.As(lastErr, &perr) {
		why = perr.Brief()
	}
	c.failed(t.ModelID, why)
	return nil, true, lastErr
}

// attempt makes one attempt on one key and waits for its first output.
func (c *callRoute) attempt(ctx context.Context, t routing.Target, keyID string, ep ports.Endpoint, moved string, timeout time.Duration) (*replay, error) {
	sub := c.call
	sub.Endpoint = ep
	sub.Request.Model = t.UpstreamModel
	if c.attempts > 0 {
		sub.CallID = c.call.CallID + ":route-" + strconv.Itoa(c.attempts)
	}
	sub.Route = callrecord.Route{ID: c.route.ID, Target: t.ModelID, Provider: t.ProviderID, Key: keyID,
		Attempt: c.attempts, Moved: moved}
	c.attempts++
	actx, cancel := context.WithCancelCause(ctx)
	stop := watch(actx, cancel, c.r.o.Clock, timeout)
	stream, err := c.r.o.Next.Stream(actx, sub)
	var held []llm.Event
	if err == nil {
		if held, err = firstOutput(stream); err != nil {
			_ = stream.Close()
		}
	}
	stop()
	if err == nil && errors.Is(context.Cause(actx), errNoOutput) {
		// The first output came as the time ran out; it has not left the
		// router, so the call may still move.
		_ = stream.Close()
		err = context.Cause(actx)
	}
	if err != nil {
		if errors.Is(context.Cause(actx), errNoOutput) && ctx.Err() == nil {
			err = &llm.ProviderError{Class: llm.ErrorTransient, Message: "no first token within " + timeout.String(), Err: errNoOutput}
		}
		cancel(nil)
		return nil, err
	}
	return &replay{ModelStream: stream, held: held, cancel: cancel}, nil
}

// limited reports whether t has per-minute limits the router enforces.
func (c *callRoute) limited(t routing.Target) bool {
	return c.r.o.Windows != nil && (t.RequestsPerMinute > 0 || t.TokensPerMinute > 0)
}

// admit counts the call against t's per-minute limits; a target without
// room this minute is passed over like a failed one, without resting it,
// and the call fails as rate-limited when no target had room.
func (c *callRoute) admit(ctx context.Context, t routing.Target) error {
	if !c.limited(t) {
		return nil
	}
	now := c.r.o.Clock.Now()
	window := budget.MinuteStart(now)
	ok, requests, tokens, err := c.r.o.Windows.Admit(ctx, routing.TargetScope(t.ModelID), window, t.RequestsPerMinute, t.TokensPerMinute)
	if err != nil {
		return fmt.Errorf("target %s: %w", t.ModelID, err)
	}
	if ok {
		return nil
	}
	why := fmt.Sprintf("%d of %d requests", requests, t.RequestsPerMinute)
	if t.RequestsPerMinute == 0 || requests < t.RequestsPerMinute {
		why = fmt.Sprintf("%d of %d tokens", tokens, t.TokensPerMinute)
	}
	c.failedAt, c.failedWith = t.ModelID, "was at its per-minute limit ("+why+")"
	return &llm.ProviderError{Class: llm.ErrorRateLimit, RetryAfter: window.Add(time.Minute).Sub(now),
		Message: fmt.Sprintf("model %s is at its per-minute limit (%s this minute)", t.ModelID, why)}
}

// countTokens returns what counts a served call's tokens against t's
// per-minute window once the call ends.
func (c *callRoute) countTokens(ctx context.Context, t routing.Target) func(*llm.Usage) {
	window := budget.MinuteStart(c.r.o.Clock.Now())
	// The count is written when the stream ends, whatever ended the call.
	ctx = context.WithoutCancel(ctx)
	return func(u *llm.Usage) {
		if u == nil || t.TokensPerMinute == 0 {
			return
		}
		c.r.write(ctx, "count target tokens", func(ctx context.Context) error {
			return c.r.o.Windows.AddTokens(ctx, routing.TargetScope(t.ModelID), window, budget.Tokens(*u))
		})
	}
}

// sticky is the target that served the conversation's last call on the
// route, or "".
func (c *callRoute) sticky(ctx context.Context) (string, error) {
	if c.call.ConversationID == "" || c.r.o.Affinity == nil {
		return "", nil
	}
	id, err := c.r.o.Affinity.Affinity(ctx, c.call.ConversationID, c.route.ID)
	if errors.Is(err, ports.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("route %s: %w", c.route.ID, err)
	}
	return id, nil
}

// setSticky records the target that served the call. A failure to record
// only costs the next call its stickiness, so it is logged, not returned.
func (c *callRoute) setSticky(ctx context.Context, modelID string) {
	if c.call.ConversationID == "" || c.r.o.Affinity == nil {
		return
	}
	c.r.write(ctx, "record affinity", func(ctx context.Context) error {
		return c.r.o.Affinity.SetAffinity(ctx, c.call.ConversationID, c.route.ID, modelID, c.r.o.Clock.Now())
	})
}

// keyFailed records a key's failure and takes a key that keeps failing
// authentication out of its pool.
func (c *callRoute) keyFailed(ctx context.Context, t routing.Target, keyID string, f routing.Failure) {
	var h routing.Health
	ok := c.r.write(ctx, "record key failure", func(ctx context.Context) error {
		var err error
		h, err = c.r.o.Health.RecordFailure(ctx, routing.KeySubject(keyID), f)
		return err
	})
	if !ok || !f.Auth || !routing.ShouldDisable(h) || c.r.o.Keys == nil {
		return
	}
	// The console recognises the reason's prefix (app/control).
	reason := fmt.Sprintf("disabled by Keygate: %d authentication failures in a row, the last at %s: %s",
		h.AuthFailures, f.At.UTC().Format(time.RFC3339), f.Message)
	if c.r.write(ctx, "disable key", func(ctx context.Context) error {
		return c.r.o.Keys.SetKeyEnabled(ctx, t.ProviderID, keyID, false, reason)
	}) {
		c.r.o.Logger.Warn("provider key disabled after repeated authentication failures",
			zap.String("provider", t.ProviderID), zap.String("key", keyID), zap.Int("failures", h.AuthFailures))
	}
}

// rest records a target's failure, which rests it.
func (c *callRoute) rest(ctx context.Context, subject string, f routing.Failure) {
	c.r.write(ctx, "record failure", func(ctx context.Context) error {
		_, err := c.r.o.Health.RecordFailure(ctx, subject, f)
		return err
	})
}

// recovered clears a subject's failures after a success, writing only
// when there is something to clear.
func (c *callRoute) recovered(ctx context.Context, subject string, h routing.Health) {
	if h.Clean() {
		return
	}
	c.r.write(ctx, "record success", func(ctx context.Context) error {
		return c.r.o.Health.RecordSuccess(ctx, subject, c.r.o.Clock.Now())
	})
}

// draw returns uniform draws seeded by the conversation, so that a
// conversation's weighted choices are the same on every replica.
func (c *callRoute) draw() func(n int) int {
	rng := rand.New(rand.NewPCG(c.seed, uint64(c.attempts)))
	return rng.IntN
}

// write runs a bookkeeping write detached from the call's cancellation
// (a failure must be recorded even when the turn ends right after) and
// bounded in time; a failed write is logged.
func (r *Router) write(ctx context.Context, op string, f func(ctx context.Context) error) bool {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := f(wctx); err != nil {
		r.o.Logger.Warn("routing bookkeeping failed", zap.String("op", op), zap.Error(err))
		return false
	}
	return true
}

// seed hashes a conversation id, so that each conversation keeps to one
// key of a pool (a provider's prompt cache is per key's organisation) and
// conversations spread over the keys.
func seed(conversationID string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(conversationID))
	return h.Sum64()
}

func badRequest(msg string, cause error) error {
	return &llm.ProviderError{Class: llm.ErrorBadRequest, Message: msg, Err: cause}
}
