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
	s := appcontrol.ServiceSettings{Detailed: in.GetDetailedMode(), RetentionHours: int(in.GetDetailedRetentionHours())}
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
	out := &controlv1.Settings{DetailedMode: s.Detailed, DetailedRetentionHours: int32(s.RetentionHours)}
	for _, p := range s.Prices {
		out.Prices = append(out.Prices, &controlv1.ModelPrice{ModelId: p.ModelID, InputPerMillion: p.Input,
			OutputPerMillion: p.Output, CacheReadPerMillion: p.CacheRead, CacheWritePerMillion: p.CacheWrite})
	}
	return out
}
