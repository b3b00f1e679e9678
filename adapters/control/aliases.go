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
	"keygate/ports"
)

// aliasService implements controlv1connect.AliasServiceHandler. Changes
// are an administrator's (see adminOnly); members may list.
type aliasService struct {
	aliases *appcontrol.Aliases
	log     *zap.Logger
}

var _ controlv1connect.AliasServiceHandler = (*aliasService)(nil)

func strategyFromProto(s controlv1.TargetStrategy) routing.TargetStrategy {
	if s == controlv1.TargetStrategy_TARGET_STRATEGY_WEIGHTED {
		return routing.TargetsWeighted
	}
	return routing.TargetsOrdered
}

func strategyToProto(s routing.TargetStrategy) controlv1.TargetStrategy {
	if s == routing.TargetsWeighted {
		return controlv1.TargetStrategy_TARGET_STRATEGY_WEIGHTED
	}
	return controlv1.TargetStrategy_TARGET_STRATEGY_ORDERED
}

func aliasSettingsFromProto(s *controlv1.AliasSettings) appcontrol.AliasSettings {
	out := appcontrol.AliasSettings{DisplayName: s.GetDisplayName(), GroupName: s.GetGroupName(), Tooltip: s.GetTooltip(),
		Strategy: strategyFromProto(s.GetStrategy()), FirstTokenTimeout: time.Duration(s.GetFirstTokenTimeoutMs()) * time.Millisecond}
	for _, t := range s.GetTargets() {
		out.Targets = append(out.Targets, ports.AliasTarget{ModelID: t.GetModelId(), Weight: int(t.GetWeight()), Drained: t.GetDrained()})
	}
	return out
}

func aliasToProto(a appcontrol.Alias) *controlv1.Alias {
	al := a.Alias
	out := &controlv1.Alias{Id: al.ID, SortOrder: int32(al.SortOrder), Enabled: al.Enabled,
		CreateTime: timestamppb.New(al.CreatedAt), UpdateTime: timestamppb.New(al.UpdatedAt),
		Settings: &controlv1.AliasSettings{DisplayName: al.DisplayName, GroupName: al.GroupName, Tooltip: al.Tooltip,
			Strategy: strategyToProto(al.Strategy), FirstTokenTimeoutMs: al.FirstTokenTimeout.Milliseconds()}}
	for _, t := range a.Targets {
		pt := &controlv1.AliasTarget{ModelId: t.ModelID, Weight: int32(t.Weight), Drained: t.Drained}
		out.Settings.Targets = append(out.Settings.Targets, pt)
		state := controlv1.HealthState_HEALTH_STATE_HEALTHY
		switch {
		case t.Drained:
			state = controlv1.HealthState_HEALTH_STATE_DISABLED
		case t.Resting:
			state = controlv1.HealthState_HEALTH_STATE_RESTING
		}
		out.Targets = append(out.Targets, &controlv1.AliasTargetStatus{Target: pt, DisplayName: t.DisplayName,
			ProviderName: t.ProviderName, Health: healthToProto(state, t.Health)})
	}
	return out
}

func (h *aliasService) ListAliases(ctx context.Context, _ *connect.Request[controlv1.ListAliasesRequest]) (*connect.Response[controlv1.ListAliasesResponse], error) {
	as, err := h.aliases.List(ctx)
	if err != nil {
		return nil, toConnect(h.log, "ListAliases", err)
	}
	out := &controlv1.ListAliasesResponse{}
	member := isMember(ctx)
	for _, a := range as {
		pa := aliasToProto(a)
		if member {
			// A provider's name is its URL's host unless an
			// administrator chose another (see hideFromMembers).
			for _, t := range pa.GetTargets() {
				t.ProviderName = ""
			}
		}
		out.Aliases = append(out.Aliases, pa)
	}
	return connect.NewResponse(out), nil
}

func (h *aliasService) CreateAlias(ctx context.Context, req *connect.Request[controlv1.CreateAliasRequest]) (*connect.Response[controlv1.CreateAliasResponse], error) {
	a, err := h.aliases.Create(ctx, aliasSettingsFromProto(req.Msg.GetSettings()), req.Msg.GetEnabled())
	if err != nil {
		return nil, toConnect(h.log, "CreateAlias", err)
	}
	return connect.NewResponse(&controlv1.CreateAliasResponse{Alias: aliasToProto(a)}), nil
}

func (h *aliasService) UpdateAlias(ctx context.Context, req *connect.Request[controlv1.UpdateAliasRequest]) (*connect.Response[controlv1.UpdateAliasResponse], error) {
	a, err := h.aliases.Update(ctx, req.Msg.GetId(), aliasSettingsFromProto(req.Msg.GetSettings()))
	if err != nil {
		return nil, toConnect(h.log, "UpdateAlias", err)
	}
	return connect.NewResponse(&controlv1.UpdateAliasResponse{Alias: aliasToProto(a)}), nil
}

func (h *aliasService) DeleteAlias(ctx context.Context, req *connect.Request[controlv1.DeleteAliasRequest]) (*connect.Response[controlv1.DeleteAliasResponse], error) {
	if err := h.aliases.Delete(ctx, req.Msg.GetId()); err != nil {
		return nil, toConnect(h.log, "DeleteAlias", err)
	}
	return connect.NewResponse(&controlv1.DeleteAliasResponse{}), nil
}

func (h *aliasService) SetAliasEnabled(ctx context.Context, req *connect.Request[controlv1.SetAliasEnabledRequest]) (*connect.Response[controlv1.SetAliasEnabledResponse], error) {
	a, err := h.aliases.SetEnabled(ctx, req.Msg.GetId(), req.Msg.GetEnabled())
	if err != nil {
		return nil, toConnect(h.log, "SetAliasEnabled", err)
	}
	return connect.NewResponse(&controlv1.SetAliasEnabledResponse{Alias: aliasToProto(a)}), nil
}

func (h *aliasService) DrainAliasTarget(ctx context.Context, req *connect.Request[controlv1.DrainAliasTargetRequest]) (*connect.Response[controlv1.DrainAliasTargetResponse], error) {
	a, err := h.aliases.DrainTarget(ctx, req.Msg.GetId(), req.Msg.GetModelId(), req.Msg.GetDrained())
	if err != nil {
		return nil, toConnect(h.log, "DrainAliasTarget", err)
	}
	return connect.NewResponse(&controlv1.DrainAliasTargetResponse{Alias: aliasToProto(a)}), nil
}
