package control

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	"keygate/domain/routing"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// providerService implements controlv1connect.ProviderServiceHandler.
// Every procedure is an administrator's (see adminOnly).
type providerService struct {
	providers *appcontrol.Providers
	log       *zap.Logger
}

var _ controlv1connect.ProviderServiceHandler = (*providerService)(nil)

func keyStrategyFromProto(k controlv1.KeyStrategy) routing.KeyStrategy {
	if k == controlv1.KeyStrategy_KEY_STRATEGY_WEIGHTED {
		return routing.KeysWeighted
	}
	return routing.KeysRoundRobin
}

func keyStrategyToProto(k routing.KeyStrategy) controlv1.KeyStrategy {
	if k == routing.KeysWeighted {
		return controlv1.KeyStrategy_KEY_STRATEGY_WEIGHTED
	}
	return controlv1.KeyStrategy_KEY_STRATEGY_ROUND_ROBIN
}

func providerSettingsFromProto(s *controlv1.ProviderSettings) appcontrol.ProviderSettings {
	return appcontrol.ProviderSettings{Name: s.GetName(), ProviderKind: kindFromProto(s.GetProviderKind()),
		BaseURL: s.GetBaseUrl(), UseFullURL: s.GetUseFullUrl(), CustomHeaders: s.GetCustomHeaders(),
		Region: s.GetRegion(), KeyStrategy: keyStrategyFromProto(s.GetKeyStrategy()),
		CoolDown: time.Duration(s.GetCoolDownSeconds()) * time.Second, Cloud: cloudFromProto(s.GetCloud())}
}

func providerToProto(p appcontrol.ProviderView) *controlv1.Provider {
	s := p.Settings
	out := &controlv1.Provider{Id: p.ID, ModelIds: p.Models, CustomHeaderHints: headerHintsToProto(p.Headers),
		CreateTime: timestamppb.New(p.CreatedAt), UpdateTime: timestamppb.New(p.UpdatedAt),
		Settings: &controlv1.ProviderSettings{Name: s.Name, ProviderKind: kindToProto(s.ProviderKind), BaseUrl: s.BaseURL,
			UseFullUrl: s.UseFullURL, CustomHeaders: s.CustomHeaders, Region: s.Region,
			KeyStrategy: keyStrategyToProto(s.KeyStrategy), CoolDownSeconds: int64(s.CoolDown / time.Second),
			Cloud: cloudToProto(s.Cloud)}}
	for _, k := range p.Keys {
		state := controlv1.HealthState_HEALTH_STATE_HEALTHY
		switch {
		case !k.Enabled:
			state = controlv1.HealthState_HEALTH_STATE_DISABLED
		case k.Resting:
			state = controlv1.HealthState_HEALTH_STATE_RESTING
		}
		out.Keys = append(out.Keys, &controlv1.ProviderKey{Id: k.ID, ApiKeyHint: k.Hint, Weight: int32(k.Weight),
			Enabled: k.Enabled, DisabledReason: k.DisabledReason, DisabledByKeygate: k.DisabledByKeygate,
			Health:     healthToProto(state, k.Health),
			CreateTime: timestamppb.New(k.CreatedAt), UpdateTime: timestamppb.New(k.UpdatedAt)})
	}
	return out
}

// healthToProto is a key's or target's health; unset times stay unset.
func healthToProto(state controlv1.HealthState, h routing.Health) *controlv1.Health {
	out := &controlv1.Health{State: state, LastError: h.LastError, Failures: int32(h.Failures)}
	if state == controlv1.HealthState_HEALTH_STATE_RESTING {
		out.RestUntil = timestamppb.New(h.CoolUntil)
	}
	if !h.LastErrorAt.IsZero() {
		out.LastErrorTime = timestamppb.New(h.LastErrorAt)
	}
	return out
}

func newKeyFromProto(k *controlv1.NewProviderKey) appcontrol.NewKey {
	return appcontrol.NewKey{Key: k.GetApiKey(), Weight: int(k.GetWeight())}
}

func (h *providerService) ListProviders(ctx context.Context, _ *connect.Request[controlv1.ListProvidersRequest]) (*connect.Response[controlv1.ListProvidersResponse], error) {
	ps, err := h.providers.List(ctx)
	if err != nil {
		return nil, toConnect(h.log, "ListProviders", err)
	}
	out := &controlv1.ListProvidersResponse{}
	for _, p := range ps {
		out.Providers = append(out.Providers, providerToProto(p))
	}
	return connect.NewResponse(out), nil
}

func (h *providerService) CreateProvider(ctx context.Context, req *connect.Request[controlv1.CreateProviderRequest]) (*connect.Response[controlv1.CreateProviderResponse], error) {
	var keys []appcontrol.NewKey
	for _, k := range req.Msg.GetKeys() {
		keys = append(keys, newKeyFromProto(k))
	}
	p, err := h.providers.Create(ctx, providerSettingsFromProto(req.Msg.GetSettings()), keys)
	if err != nil {
		return nil, toConnect(h.log, "CreateProvider", err)
	}
	return connect.NewResponse(&controlv1.CreateProviderResponse{Provider: providerToProto(p)}), nil
}

func (h *providerService) UpdateProvider(ctx context.Context, req *connect.Request[controlv1.UpdateProviderRequest]) (*connect.Response[controlv1.UpdateProviderResponse], error) {
	p, err := h.providers.Update(ctx, req.Msg.GetId(), providerSettingsFromProto(req.Msg.GetSettings()))
	if err != nil {
		return nil, toConnect(h.log, "UpdateProvider", err)
	}
	return connect.NewResponse(&controlv1.UpdateProviderResponse{Provider: providerToProto(p)}), nil
}

func (h *providerService) DeleteProvider(ctx context.Context, req *connect.Request[controlv1.DeleteProviderRequest]) (*connect.Response[controlv1.DeleteProviderResponse], error) {
	if err := h.providers.Delete(ctx, req.Msg.GetId()); err != nil {
		return nil, toConnect(h.log, "DeleteProvider", err)
	}
	return connect.NewResponse(&controlv1.DeleteProviderResponse{}), nil
}

func (h *providerService) AddProviderKey(ctx context.Context, req *connect.Request[controlv1.AddProviderKeyRequest]) (*connect.Response[controlv1.AddProviderKeyResponse], error) {
	p, err := h.providers.AddKey(ctx, req.Msg.GetProviderId(), newKeyFromProto(req.Msg.GetKey()))
	if err != nil {
		return nil, toConnect(h.log, "AddProviderKey", err)
	}
	return connect.NewResponse(&controlv1.AddProviderKeyResponse{Provider: providerToProto(p)}), nil
}

func (h *providerService) UpdateProviderKey(ctx context.Context, req *connect.Request[controlv1.UpdateProviderKeyRequest]) (*connect.Response[controlv1.UpdateProviderKeyResponse], error) {
	p, err := h.providers.UpdateKey(ctx, req.Msg.GetProviderId(), req.Msg.GetKeyId(), req.Msg.GetApiKey(), int(req.Msg.GetWeight()))
	if err != nil {
		return nil, toConnect(h.log, "UpdateProviderKey", err)
	}
	return connect.NewResponse(&controlv1.UpdateProviderKeyResponse{Provider: providerToProto(p)}), nil
}

func (h *providerService) SetProviderKeyEnabled(ctx context.Context, req *connect.Request[controlv1.SetProviderKeyEnabledRequest]) (*connect.Response[controlv1.SetProviderKeyEnabledResponse], error) {
	p, err := h.providers.SetKeyEnabled(ctx, req.Msg.GetProviderId(), req.Msg.GetKeyId(), req.Msg.GetEnabled())
	if err != nil {
		return nil, toConnect(h.log, "SetProviderKeyEnabled", err)
	}
	return connect.NewResponse(&controlv1.SetProviderKeyEnabledResponse{Provider: providerToProto(p)}), nil
}

func (h *providerService) DeleteProviderKey(ctx context.Context, req *connect.Request[controlv1.DeleteProviderKeyRequest]) (*connect.Response[controlv1.DeleteProviderKeyResponse], error) {
	p, err := h.providers.DeleteKey(ctx, req.Msg.GetProviderId(), req.Msg.GetKeyId())
	if err != nil {
		return nil, toConnect(h.log, "DeleteProviderKey", err)
	}
	return connect.NewResponse(&controlv1.DeleteProviderKeyResponse{Provider: providerToProto(p)}), nil
}
