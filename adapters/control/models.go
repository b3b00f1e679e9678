package control

import (
	"context"
	"encoding/json"
	"strings"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
	"keygate/ports"
)

// modelService implements controlv1connect.ModelServiceHandler.
type modelService struct {
	models    *appcontrol.Models
	discovery *appcontrol.Discovery
	tester    *appcontrol.Tester
	calls     *appcontrol.Calls
	log       *zap.Logger
}

var _ controlv1connect.ModelServiceHandler = (*modelService)(nil)

// kindPrefix starts the name of every ProviderKind value; the rest is the
// stored kind in upper case (PROVIDER_KIND_OPENAI_CHAT is openai_chat), so
// a protocol needs no mapping of its own here.
const kindPrefix = "PROVIDER_KIND_"

// kindFromProto returns the stored kind a value names; UNSPECIFIED and
// numbers the enum does not define give "", which no protocol has.
func kindFromProto(k controlv1.ProviderKind) llm.ProviderKind {
	name, ok := controlv1.ProviderKind_name[int32(k)]
	if !ok || k == controlv1.ProviderKind_PROVIDER_KIND_UNSPECIFIED {
		return ""
	}
	return llm.ProviderKind(strings.ToLower(strings.TrimPrefix(name, kindPrefix)))
}

// kindToProto returns the value naming a stored kind, UNSPECIFIED for a
// kind the enum lacks.
func kindToProto(k llm.ProviderKind) controlv1.ProviderKind {
	if k == "" {
		return controlv1.ProviderKind_PROVIDER_KIND_UNSPECIFIED
	}
	return controlv1.ProviderKind(controlv1.ProviderKind_value[kindPrefix+strings.ToUpper(string(k))])
}

func protocolsToProto(ps []ports.ProviderProtocol) []*controlv1.ProviderProtocol {
	out := make([]*controlv1.ProviderProtocol, len(ps))
	for i, p := range ps {
		out[i] = &controlv1.ProviderProtocol{Kind: kindToProto(p.Kind), Name: p.Name, Title: p.Title, FillIn: p.FillIn,
			Cloud: cloudDeclarationToProto(p.Cloud)}
	}
	return out
}

func settingsFromProto(s *controlv1.ModelSettings) appcontrol.ModelSettings {
	out := appcontrol.ModelSettings{DisplayName: s.GetDisplayName(), GroupName: s.GetGroupName(),
		ProviderID:   s.GetProviderId(),
		ProviderKind: kindFromProto(s.GetProviderKind()), BaseURL: s.GetBaseUrl(), UseFullURL: s.GetUseFullUrl(),
		ModelID: s.GetModelId(), Tooltip: s.GetTooltip(), ReasoningEffort: s.GetReasoningEffort(),
		ContextWindowTokens: s.GetContextWindowTokens(), MaxOutputTokens: s.GetMaxOutputTokens(),
		CustomHeaders: s.GetCustomHeaders(), SupportsImages: s.GetSupportsImages(), SupportsTools: s.GetSupportsTools(),
		RequestsPerMinute: s.GetRequestsPerMinute(), TokensPerMinute: s.GetTokensPerMinute()}
	if p := strings.TrimSpace(s.GetExtraParamsJson()); p != "" {
		out.ExtraParams = json.RawMessage(p)
	}
	return out
}

func modelToProto(m appcontrol.Model) *controlv1.Model {
	s := m.Settings
	return &controlv1.Model{Id: m.Config.ID, SortOrder: int32(m.Config.SortOrder), Enabled: m.Config.Enabled,
		HasApiKey: m.HasAPIKey, ApiKeyHint: m.KeyHint, ProviderName: m.ProviderName,
		CreateTime: timestamppb.New(m.Config.CreatedAt), UpdateTime: timestamppb.New(m.Config.UpdatedAt),
		Settings: &controlv1.ModelSettings{DisplayName: s.DisplayName, GroupName: s.GroupName,
			ProviderKind: kindToProto(s.ProviderKind), BaseUrl: s.BaseURL, UseFullUrl: s.UseFullURL,
			ModelId: s.ModelID, Tooltip: s.Tooltip, ReasoningEffort: s.ReasoningEffort,
			ContextWindowTokens: s.ContextWindowTokens, MaxOutputTokens: s.MaxOutputTokens,
			ExtraParamsJson: string(s.ExtraParams), CustomHeaders: s.CustomHeaders,
			SupportsImages: s.SupportsImages, SupportsTools: s.SupportsTools, ProviderId: s.ProviderID,
			RequestsPerMinute: s.RequestsPerMinute, TokensPerMinute: s.TokensPerMinute},
		CustomHeaderHints: headerHintsToProto(m.Headers)}
}

// headerHintsToProto are custom headers' names and masked hints.
func headerHintsToProto(hs []appcontrol.HeaderView) []*controlv1.CustomHeaderHint {
	var out []*controlv1.CustomHeaderHint
	for _, h := range hs {
		out = append(out, &controlv1.CustomHeaderHint{Name: h.Name, Hint: h.Hint})
	}
	return out
}

func modelsToProto(ms []appcontrol.Model) []*controlv1.Model {
	out := make([]*controlv1.Model, len(ms))
	for i, m := range ms {
		out[i] = modelToProto(m)
	}
	return out
}

func (h *modelService) ListModels(ctx context.Context, _ *connect.Request[controlv1.ListModelsRequest]) (*connect.Response[controlv1.ListModelsResponse], error) {
	ms, err := h.models.List(ctx)
	if err != nil {
		return nil, toConnect(h.log, "ListModels", err)
	}
	out := modelsToProto(ms)
	if p, ok := access.FromContext(ctx); ok && !p.IsAdmin() {
		hideFromMembers(out)
	}
	return connect.NewResponse(&controlv1.ListModelsResponse{Models: out,
		Protocols: protocolsToProto(h.models.Protocols())}), nil
}

// hideFromMembers takes out of models what a signed-in member may not
// see: a hint of the key or of a custom header's value (they see that a
// model has a key and which headers it sends), and where the provider is:
// its base URL (which may name an internal gateway) and its name, which
// is the URL's host unless an administrator chose another. Header values
// never leave for anyone (appcontrol.Model carries none).
func hideFromMembers(models []*controlv1.Model) {
	for _, m := range models {
		m.ApiKeyHint, m.ProviderName = "", ""
		m.GetSettings().BaseUrl = ""
		for _, h := range m.GetCustomHeaderHints() {
			h.Hint = ""
		}
	}
}

func (h *modelService) CreateModel(ctx context.Context, req *connect.Request[controlv1.CreateModelRequest]) (*connect.Response[controlv1.CreateModelResponse], error) {
	m, err := h.models.Create(ctx, settingsFromProto(req.Msg.GetSettings()), req.Msg.GetApiKey(), req.Msg.GetEnabled())
	if err != nil {
		return nil, toConnect(h.log, "CreateModel", err)
	}
	return connect.NewResponse(&controlv1.CreateModelResponse{Model: modelToProto(m)}), nil
}

func (h *modelService) UpdateModel(ctx context.Context, req *connect.Request[controlv1.UpdateModelRequest]) (*connect.Response[controlv1.UpdateModelResponse], error) {
	m, err := h.models.Update(ctx, req.Msg.GetId(), settingsFromProto(req.Msg.GetSettings()), req.Msg.GetApiKey())
	if err != nil {
		return nil, toConnect(h.log, "UpdateModel", err)
	}
	return connect.NewResponse(&controlv1.UpdateModelResponse{Model: modelToProto(m)}), nil
}

func (h *modelService) DeleteModel(ctx context.Context, req *connect.Request[controlv1.DeleteModelRequest]) (*connect.Response[controlv1.DeleteModelResponse], error) {
	if err := h.models.Delete(ctx, req.Msg.GetId()); err != nil {
		return nil, toConnect(h.log, "DeleteModel", err)
	}
	return connect.NewResponse(&controlv1.DeleteModelResponse{}), nil
}

func (h *modelService) SetModelEnabled(ctx context.Context, req *connect.Request[controlv1.SetModelEnabledRequest]) (*connect.Response[controlv1.SetModelEnabledResponse], error) {
	m, err := h.models.SetEnabled(ctx, req.Msg.GetId(), req.Msg.GetEnabled())
	if err != nil {
		return nil, toConnect(h.log, "SetModelEnabled", err)
	}
	return connect.NewResponse(&controlv1.SetModelEnabledResponse{Model: modelToProto(m)}), nil
}

func (h *modelService) ReorderModels(ctx context.Context, req *connect.Request[controlv1.ReorderModelsRequest]) (*connect.Response[controlv1.ReorderModelsResponse], error) {
	ms, err := h.models.Reorder(ctx, req.Msg.GetIds())
	if err != nil {
		return nil, toConnect(h.log, "ReorderModels", err)
	}
	return connect.NewResponse(&controlv1.ReorderModelsResponse{Models: modelsToProto(ms)}), nil
}

func (h *modelService) DuplicateModel(ctx context.Context, req *connect.Request[controlv1.DuplicateModelRequest]) (*connect.Response[controlv1.DuplicateModelResponse], error) {
	m, err := h.models.Duplicate(ctx, req.Msg.GetId())
	if err != nil {
		return nil, toConnect(h.log, "DuplicateModel", err)
	}
	return connect.NewResponse(&controlv1.DuplicateModelResponse{Model: modelToProto(m)}), nil
}

func (h *modelService) DiscoverModels(ctx context.Context, req *connect.Request[controlv1.DiscoverModelsRequest]) (*connect.Response[controlv1.DiscoverModelsResponse], error) {
	ids, err := h.discovery.Discover(ctx, appcontrol.DiscoverQuery{KeyFromModel: req.Msg.GetKeyFromModelId(),
		KeyFromProvider: req.Msg.GetKeyFromProviderId(),
		ModelListQuery: ports.ModelListQuery{Kind: kindFromProto(req.Msg.GetProviderKind()), BaseURL: req.Msg.GetBaseUrl(),
			APIKey: req.Msg.GetApiKey(), Headers: req.Msg.GetCustomHeaders(), Cloud: cloudFromProto(req.Msg.GetCloud())}})
	if err != nil {
		return nil, toConnect(h.log, "DiscoverModels", err)
	}
	return connect.NewResponse(&controlv1.DiscoverModelsResponse{ModelIds: ids}), nil
}

func (h *modelService) TestModel(ctx context.Context, req *connect.Request[controlv1.TestModelRequest], out *connect.ServerStream[controlv1.TestModelResponse]) error {
	// The use case's phases are numbered like the API's (1 connecting,
	// 2 streaming, 3 done). A failed Send (client gone) stops reporting;
	// the test itself ends with the request's context.
	var sendErr error
	res, err := h.tester.Test(ctx, req.Msg.GetId(), func(p appcontrol.TestProgress) {
		if sendErr == nil {
			sendErr = out.Send(&controlv1.TestModelResponse{Phase: controlv1.TestPhase(p.Phase), ReceivedChars: int64(p.ReceivedChars)})
		}
	})
	if err != nil {
		return toConnect(h.log, "TestModel", err)
	}
	result := &controlv1.TestResult{Ok: res.OK, Error: res.Error, TimeToFirstTokenMs: res.TimeToFirstText.Milliseconds(),
		DurationMs: res.Duration.Milliseconds(), OutputTokens: res.OutputTokens, TokensEstimated: res.TokensEstimated,
		TokensPerSecond: res.TokensPerSecond, OutputText: res.Text, CallId: res.CallID}
	if d, err := h.calls.Get(ctx, res.CallID); err == nil {
		var raw strings.Builder
		for _, c := range d.Chunks {
			raw.Write(c.Data)
		}
		result.RawResponse = raw.String()
	}
	return out.Send(&controlv1.TestModelResponse{Phase: controlv1.TestPhase_TEST_PHASE_DONE, Result: result})
}
