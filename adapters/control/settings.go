package control

import (
	"context"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	appcontrol "keygate/app/control"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// settingService implements controlv1connect.SettingServiceHandler.
type settingService struct {
	settings *appcontrol.Settings
	// tab is nil when Tab is not served (GetTabModel then answers none).
	tab *appcontrol.TabModel
	// features are the feature model settings; nil when none is wired.
	features *appcontrol.FeatureModels
	log      *zap.Logger
}

var _ controlv1connect.SettingServiceHandler = (*settingService)(nil)

func (h *settingService) GetSettings(ctx context.Context, _ *connect.Request[controlv1.GetSettingsRequest]) (*connect.Response[controlv1.GetSettingsResponse], error) {
	s, err := h.settings.Load(ctx)
	if err != nil {
		return nil, toConnect(h.log, "GetSettings", err)
	}
	return connect.NewResponse(&controlv1.GetSettingsResponse{Settings: settingsToProto(s)}), nil
}

func (h *settingService) UpdateSettings(ctx context.Context, req *connect.Request[controlv1.UpdateSettingsRequest]) (*connect.Response[controlv1.UpdateSettingsResponse], error) {
	in := req.Msg.GetSettings()
	s := appcontrol.ServiceSettings{Detailed: in.GetDetailedMode(), RetentionHours: int(in.GetDetailedRetentionHours()),
		ConversationRetentionDays: int(in.GetConversationRetentionDays())}
	for _, p := range in.GetPrices() {
		s.Prices = append(s.Prices, appcontrol.Price{ModelID: p.GetModelId(), Input: p.GetInputPerMillion(),
			Output: p.GetOutputPerMillion(), CacheRead: p.GetCacheReadPerMillion(), CacheWrite: p.GetCacheWritePerMillion()})
	}
	out, err := h.settings.Update(ctx, s)
	if err != nil {
		return nil, toConnect(h.log, "UpdateSettings", err)
	}
	return connect.NewResponse(&controlv1.UpdateSettingsResponse{Settings: settingsToProto(out)}), nil
}

func settingsToProto(s appcontrol.ServiceSettings) *controlv1.Settings {
	out := &controlv1.Settings{DetailedMode: s.Detailed, DetailedRetentionHours: int32(s.RetentionHours),
		ConversationRetentionDays: int32(s.ConversationRetentionDays)}
	for _, p := range s.Prices {
		out.Prices = append(out.Prices, &controlv1.ModelPrice{ModelId: p.ModelID, InputPerMillion: p.Input,
			OutputPerMillion: p.Output, CacheReadPerMillion: p.CacheRead, CacheWritePerMillion: p.CacheWrite})
	}
	return out
}

func (h *settingService) GetTabModel(ctx context.Context, _ *connect.Request[controlv1.GetTabModelRequest]) (*connect.Response[controlv1.GetTabModelResponse], error) {
	if h.tab == nil {
		return connect.NewResponse(&controlv1.GetTabModelResponse{TabModel: &controlv1.TabModel{}}), nil
	}
	c, err := h.tab.Choice(ctx)
	if err != nil {
		return nil, toConnect(h.log, "GetTabModel", err)
	}
	return connect.NewResponse(&controlv1.GetTabModelResponse{TabModel: tabModelToProto(c)}), nil
}

func (h *settingService) SetTabModel(ctx context.Context, req *connect.Request[controlv1.SetTabModelRequest]) (*connect.Response[controlv1.SetTabModelResponse], error) {
	if h.tab == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errNoTab)
	}
	var c appcontrol.TabChoice
	var err error
	if req.Msg.GetUseConfiguration() {
		c, err = h.tab.Reset(ctx)
	} else {
		c, err = h.tab.Set(ctx, req.Msg.GetModel())
	}
	if err != nil {
		return nil, toConnect(h.log, "SetTabModel", err)
	}
	return connect.NewResponse(&controlv1.SetTabModelResponse{TabModel: tabModelToProto(c)}), nil
}

func tabModelToProto(c appcontrol.TabChoice) *controlv1.TabModel {
	return &controlv1.TabModel{ModelId: c.ID, DisplayName: c.DisplayName, Source: c.Source, Problem: c.Problem}
}

// features maps the API's features to the use case's.
var features = map[controlv1.Feature]appcontrol.Feature{
	controlv1.Feature_FEATURE_TAB:    appcontrol.FeatureTab,
	controlv1.Feature_FEATURE_CMDK:   appcontrol.FeatureEdit,
	controlv1.Feature_FEATURE_COMMIT: appcontrol.FeatureCommit,
}

func (h *settingService) GetFeatureModels(ctx context.Context, _ *connect.Request[controlv1.GetFeatureModelsRequest]) (*connect.Response[controlv1.GetFeatureModelsResponse], error) {
	out := &controlv1.GetFeatureModelsResponse{}
	for _, f := range []controlv1.Feature{controlv1.Feature_FEATURE_TAB, controlv1.Feature_FEATURE_CMDK, controlv1.Feature_FEATURE_COMMIT} {
		m := h.features.Of(features[f])
		if m == nil {
			continue
		}
		c, err := m.Choice(ctx)
		if err != nil {
			return nil, toConnect(h.log, "GetFeatureModels", err)
		}
		out.FeatureModels = append(out.FeatureModels, featureModelToProto(f, m, c))
	}
	return connect.NewResponse(out), nil
}

func (h *settingService) SetFeatureModel(ctx context.Context, req *connect.Request[controlv1.SetFeatureModelRequest]) (*connect.Response[controlv1.SetFeatureModelResponse], error) {
	m := h.features.Of(features[req.Msg.GetFeature()])
	if m == nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, errBadFeature)
	}
	var c appcontrol.FeatureChoice
	var err error
	if req.Msg.GetUseConfiguration() {
		c, err = m.Reset(ctx)
	} else {
		c, err = m.Set(ctx, req.Msg.GetModel())
	}
	if err != nil {
		return nil, toConnect(h.log, "SetFeatureModel", err)
	}
	return connect.NewResponse(&controlv1.SetFeatureModelResponse{FeatureModel: featureModelToProto(req.Msg.GetFeature(), m, c)}), nil
}

func featureModelToProto(f controlv1.Feature, m *appcontrol.FeatureModel, c appcontrol.FeatureChoice) *controlv1.FeatureModel {
	return &controlv1.FeatureModel{Feature: f, ModelId: c.ID, DisplayName: c.DisplayName, Source: c.Source, Problem: c.Problem,
		Default: m.DefaultRule()}
}
