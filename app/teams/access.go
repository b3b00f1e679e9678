package teams

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/team"
	"keygate/ports"
)

// ErrNoCaller refuses a model call whose context names no user: in company
// mode every door puts the caller there, so a call without one is a wiring
// mistake that must not bypass the allow-lists.
var ErrNoCaller = fmt.Errorf("model call without a caller identity: %w", identity.ErrNoUser)

// Mappings resolves a Cursor model id mapped onto a model or alias
// (ports.ModelMappingStore's read).
type Mappings interface {
	ModelMapping(ctx context.Context, cursorModel string) (ports.ModelMapping, error)
}

// Provider wraps next so that a call on a model or alias the caller's
// teams do not allow is refused with team.Refusal (errors.Is
// team.ErrNotAllowed) before next sees it. The model is the call's route
// (the id the door asked for: Agent turn, Tab, inline edit, commit
// message, compatible API) and, for a Cursor model id mapped onto a
// Keygate model or alias, its target: either on the list allows the call.
// An unrouted call (the console's connection test) is not checked. Every
// door reaches the provider through this, so no door is left open.
func (s *Service) Provider(next ports.ModelProvider, mappings Mappings) ports.ModelProvider {
	return accessProvider{s: s, next: next, mappings: mappings}
}

type accessProvider struct {
	s        *Service
	next     ports.ModelProvider
	mappings Mappings
}

func (p accessProvider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	route := call.Endpoint.Route
	if route == "" && call.Kind == callrecord.KindTest {
		return p.next.Stream(ctx, call)
	}
	id, ok := identity.FromContext(ctx)
	if !ok || id.Validate() != nil {
		return nil, ErrNoCaller
	}
	a, err := p.s.Access(ctx, id.UserID)
	if err != nil {
		return nil, fmt.Errorf("check model access: %w", err)
	}
	if !a.Restricted {
		return p.next.Stream(ctx, call)
	}
	if route == "" {
		return nil, team.Refusal(call.Request.Model)
	}
	names := []string{route}
	if p.mappings != nil {
		m, err := p.mappings.ModelMapping(ctx, route)
		switch {
		case err == nil:
			names = append(names, m.Target)
		case !errors.Is(err, ports.ErrNotFound):
			return nil, fmt.Errorf("check model access: %w", err)
		}
	}
	if !a.AllowsAny(names...) {
		return nil, team.Refusal(route)
	}
	return p.next.Stream(ctx, call)
}

// Source lists published models and aliases (appcontrol.Publishing).
type Source interface {
	Published(ctx context.Context) ([]ports.ModelConfig, error)
}

// Published wraps src so that the list is the caller's: only the models
// and aliases their teams allow (Cursor's picker and model lists, the
// CLI's, the compatible API's /v1/models). A context without a caller gets
// the whole list: a list is not the check (Provider is), and startup reads
// such as the default feature model have no caller.
func (s *Service) Published(src Source) Source { return filtered{s: s, src: src} }

type filtered struct {
	s   *Service
	src Source
}

func (f filtered) Published(ctx context.Context) ([]ports.ModelConfig, error) {
	cfgs, err := f.src.Published(ctx)
	if err != nil {
		return nil, err
	}
	id, ok := identity.FromContext(ctx)
	if !ok || id.Validate() != nil {
		return cfgs, nil
	}
	a, err := f.s.Access(ctx, id.UserID)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	if !a.Restricted {
		return cfgs, nil
	}
	out := make([]ports.ModelConfig, 0, len(cfgs))
	for _, c := range cfgs {
		if a.Allows(c.ID) {
			out = append(out, c)
		}
	}
	return out, nil
}
