package unary

import (
	"context"
	"math"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// AvailableModels fills the picker: Cursor's answer (when upstream answers)
// with Keygate's models appended, or Keygate's models alone.
func (s *Services) AvailableModels(ctx context.Context, req *connect.Request[aiserverv1.AvailableModelsRequest]) (*connect.Response[aiserverv1.AvailableModelsResponse], error) {
	resp := &aiserverv1.AvailableModelsResponse{}
	s.upstream(ctx, aiserverv1connect.AiServiceAvailableModelsProcedure, req.Header(), req.Msg, resp)
	seen := map[string]bool{}
	for _, name := range resp.GetModelNames() {
		seen[name] = true
	}
	s.annotateMapped(ctx, resp)
	for _, m := range s.models(ctx, req.Header()) {
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		resp.ModelNames = append(resp.ModelNames, m.ID)
		resp.Models = append(resp.Models, availableModel(m))
	}
	return connect.NewResponse(resp), nil
}

// availableModel is a model's entry in the client's picker, with the
// parameters it offers (package picker) as definitions and as variants,
// and its context windows.
func availableModel(m Model) *aiserverv1.AvailableModelsResponse_AvailableModel {
	tooltip := &aiserverv1.AvailableModelsResponse_TooltipData{MarkdownContent: proto.String(m.Description)}
	entry := &aiserverv1.AvailableModelsResponse_AvailableModel{
		Name:                               m.ID,
		ServerModelName:                    proto.String(m.ID),
		DefaultOn:                          true,
		SupportsAgent:                      proto.Bool(true),
		DegradationStatus:                  aiserverv1.AvailableModelsResponse_DEGRADATION_STATUS_UNSPECIFIED.Enum(),
		TooltipData:                        tooltip,
		TooltipDataForMaxMode:              tooltip,
		SupportsThinking:                   proto.Bool(m.Thinking),
		SupportsImages:                     proto.Bool(m.Images),
		SupportsMaxMode:                    proto.Bool(true),
		SupportsNonMaxMode:                 proto.Bool(true),
		ClientDisplayName:                  proto.String(m.DisplayName),
		InputboxShortModelName:             proto.String(shortName(m)),
		IsRecommendedForBackgroundComposer: proto.Bool(false),
		SupportsPlanMode:                   proto.Bool(true),
		SupportsSandboxing:                 proto.Bool(true),
		SupportsCmdK:                       proto.Bool(false),
		NamedModelSectionIndex:             proto.Int32(1),
		VendorName:                         proto.String("Cursor"),
		Vendor: &aiserverv1.AvailableModelsResponse_ModelVendor{
			Id:          aiserverv1.AvailableModelsResponse_MODEL_VENDOR_ID_CURSOR,
			DisplayName: "Cursor",
		},
		// Keygate runs no smart-approval classifier: advertising one would
		// let the client count on approvals nobody judges, so the user is
		// asked as without smart mode (docs/cursor-protocol.md, "Smart
		// approvals").
		SupportsSmartModeClassifier: proto.Bool(false),
		ParameterDefinitions:        m.Picker.Definitions(),
		Variants:                    m.Picker.Variants(m.DisplayName),
	}
	if w := m.Picker.Window; w > 0 && w <= math.MaxInt32 {
		entry.ContextTokenLimit = proto.Int32(int32(w))
		entry.ContextTokenLimitForMaxMode = proto.Int32(int32(w))
	}
	if w := m.Picker.LongWindow; w > 0 && w <= math.MaxInt32 {
		entry.ContextTokenLimitForMaxMode = proto.Int32(int32(w))
	}
	if m.Badge != "" {
		entry.ModelPickerBadges = []*aiserverv1.AvailableModelsResponse_ModelPickerBadge{{
			Label: m.Badge, Variant: aiserverv1.AvailableModelsResponse_ModelPickerBadge_VARIANT_ACCENT,
		}}
	}
	return entry
}

func shortName(m Model) string {
	if m.ShortName != "" {
		return m.ShortName
	}
	return m.DisplayName
}

// GetUsableModels (aiserver.v1) appends Keygate's models to Cursor's answer.
// This schema's ModelDetails is the older aiserver shape: only model_name
// carries the id (field 1, the same wire slot as agent.v1's model_id).
func (s *Services) GetUsableModels(ctx context.Context, req *connect.Request[aiserverv1.GetUsableModelsRequest]) (*connect.Response[aiserverv1.GetUsableModelsResponse], error) {
	resp := &aiserverv1.GetUsableModelsResponse{}
	s.upstream(ctx, aiserverv1connect.AiServiceGetUsableModelsProcedure, req.Header(), req.Msg, resp)
	for _, m := range s.models(ctx, req.Header()) {
		resp.Models = append(resp.Models, &aiserverv1.ModelDetails{ModelName: proto.String(m.ID)})
	}
	return connect.NewResponse(resp), nil
}

// GetDefaultModel names Keygate's first model as the default (Cursor's
// answer when Keygate has none).
func (s *Services) GetDefaultModel(ctx context.Context, req *connect.Request[aiserverv1.GetDefaultModelRequest]) (*connect.Response[aiserverv1.GetDefaultModelResponse], error) {
	resp := &aiserverv1.GetDefaultModelResponse{}
	if ms := s.models(ctx, req.Header()); len(ms) > 0 {
		resp.Model, resp.ThinkingModel = ms[0].ID, ms[0].ID
		return connect.NewResponse(resp), nil
	}
	s.upstream(ctx, aiserverv1connect.AiServiceGetDefaultModelProcedure, req.Header(), req.Msg, resp)
	return connect.NewResponse(resp), nil
}

// GetDefaultModelNudgeData tells the client never to switch new chats away
// from Keygate's models.
func (s *Services) GetDefaultModelNudgeData(ctx context.Context, req *connect.Request[aiserverv1.GetDefaultModelNudgeDataRequest]) (*connect.Response[aiserverv1.GetDefaultModelNudgeDataResponse], error) {
	resp := &aiserverv1.GetDefaultModelNudgeDataResponse{NudgeDate: "0", ShouldDefaultSwitchOnNewChat: false}
	for _, m := range s.models(ctx, req.Header()) {
		resp.ModelsWithNoDefaultSwitch = append(resp.ModelsWithNoDefaultSwitch, m.ID)
	}
	return connect.NewResponse(resp), nil
}

// GetDefaultModelForCli (aiserver.v1) names Keygate's first model.
func (s *Services) GetDefaultModelForCli(ctx context.Context, req *connect.Request[aiserverv1.GetDefaultModelForCliRequest]) (*connect.Response[aiserverv1.GetDefaultModelForCliResponse], error) {
	resp := &aiserverv1.GetDefaultModelForCliResponse{}
	if ms := s.models(ctx, req.Header()); len(ms) > 0 {
		resp.Model = &aiserverv1.ModelDetails{ModelName: proto.String(ms[0].ID)}
		return connect.NewResponse(resp), nil
	}
	s.upstream(ctx, aiserverv1connect.AiServiceGetDefaultModelForCliProcedure, req.Header(), req.Msg, resp)
	return connect.NewResponse(resp), nil
}

// annotateMapped marks the entries of Cursor's own models that an
// administrator mapped onto a Keygate model or alias: a badge naming it
// and a tooltip saying turns on that entry run on Keygate. The entries
// stay Cursor's (their names are what the client sends), so the user
// keeps picking them as before.
func (s *Services) annotateMapped(ctx context.Context, resp *aiserverv1.AvailableModelsResponse) {
	if s.opts.Mapped == nil || len(resp.GetModels()) == 0 {
		return
	}
	mapped, err := s.opts.Mapped(ctx)
	if err != nil {
		s.log.Warn("model mappings unavailable; the picker does not mark mapped models", zap.Error(err))
		return
	}
	for _, e := range resp.GetModels() {
		name, ok := mapped[e.GetName()]
		if !ok {
			continue
		}
		e.ModelPickerBadges = append(e.ModelPickerBadges, &aiserverv1.AvailableModelsResponse_ModelPickerBadge{
			Label: "Keygate: " + name, Variant: aiserverv1.AvailableModelsResponse_ModelPickerBadge_VARIANT_ACCENT,
		})
		tip := &aiserverv1.AvailableModelsResponse_TooltipData{MarkdownContent: proto.String("Runs on **" + name + "** through Keygate.")}
		e.TooltipData, e.TooltipDataForMaxMode = tip, tip
	}
}
