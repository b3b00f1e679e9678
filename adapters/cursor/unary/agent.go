package unary

import (
	"context"

	"connectrpc.com/connect"

	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
)

// LocalAPIKey is the dummy credential put into agent.v1 ModelDetails: the
// client must never see a real provider key.
const LocalAPIKey = "keygate-local"

// Agent implements the unary RPCs of agent.v1.AgentService (Run and RunSSE
// are streams, served by package bidi).
type Agent struct{ s *Services }

// Agent returns the agent.v1 unary RPCs backed by the same catalog.
func (s *Services) Agent() *Agent { return &Agent{s: s} }

// GetUsableModels appends Keygate's models to Cursor's answer.
func (a *Agent) GetUsableModels(ctx context.Context, req *connect.Request[agentv1.GetUsableModelsRequest]) (*connect.Response[agentv1.GetUsableModelsResponse], error) {
	resp := &agentv1.GetUsableModelsResponse{}
	a.s.upstream(ctx, agentv1connect.AgentServiceGetUsableModelsProcedure, req.Header(), req.Msg, resp)
	for _, m := range a.s.models(ctx, req.Header()) {
		resp.Models = append(resp.Models, modelDetails(m))
	}
	return connect.NewResponse(resp), nil
}

// GetDefaultModelForCli names Keygate's first model.
func (a *Agent) GetDefaultModelForCli(ctx context.Context, req *connect.Request[agentv1.GetDefaultModelForCliRequest]) (*connect.Response[agentv1.GetDefaultModelForCliResponse], error) {
	resp := &agentv1.GetDefaultModelForCliResponse{}
	if ms := a.s.models(ctx, req.Header()); len(ms) > 0 {
		resp.Model = modelDetails(ms[0])
		return connect.NewResponse(resp), nil
	}
	a.s.upstream(ctx, agentv1connect.AgentServiceGetDefaultModelForCliProcedure, req.Header(), req.Msg, resp)
	return connect.NewResponse(resp), nil
}

// UpdateConversationMetadata is accepted and ignored: Keygate names
// conversations itself.
func (a *Agent) UpdateConversationMetadata(context.Context, *connect.Request[agentv1.UpdateConversationMetadataRequest]) (*connect.Response[agentv1.UpdateConversationMetadataResponse], error) {
	return connect.NewResponse(&agentv1.UpdateConversationMetadataResponse{}), nil
}

func modelDetails(m Model) *agentv1.ModelDetails {
	return &agentv1.ModelDetails{
		ModelId:          m.ID,
		DisplayModelId:   m.ID,
		DisplayName:      m.DisplayName,
		DisplayNameShort: shortName(m),
		ThinkingDetails:  &agentv1.ThinkingDetails{},
		Credentials: &agentv1.ModelDetails_ApiKeyCredentials{
			ApiKeyCredentials: &agentv1.ApiKeyCredentials{ApiKey: LocalAPIKey},
		},
	}
}

// GetAllowedModelIntents (the CLI asks it before listing models) is
// Cursor's answer when upstream answers, else none: Keygate's models are
// picked by id, with no intent of their own.
func (a *Agent) GetAllowedModelIntents(ctx context.Context, req *connect.Request[agentv1.GetAllowedModelIntentsRequest]) (*connect.Response[agentv1.GetAllowedModelIntentsResponse], error) {
	resp := &agentv1.GetAllowedModelIntentsResponse{}
	a.s.upstream(ctx, agentv1connect.AgentServiceGetAllowedModelIntentsProcedure, req.Header(), req.Msg, resp)
	return connect.NewResponse(resp), nil
}

// GetNewChatNudgeLegacyModelPicker never nudges a new chat away from a
// Keygate model; for another model it is Cursor's answer.
func (a *Agent) GetNewChatNudgeLegacyModelPicker(ctx context.Context, req *connect.Request[agentv1.GetNewChatNudgeLegacyModelPickerRequest]) (*connect.Response[agentv1.GetNewChatNudgeLegacyModelPickerResponse], error) {
	resp := &agentv1.GetNewChatNudgeLegacyModelPickerResponse{}
	if !a.s.keygateModel(ctx, req.Header(), req.Msg.GetCurrentModel()) {
		a.s.upstream(ctx, agentv1connect.AgentServiceGetNewChatNudgeLegacyModelPickerProcedure, req.Header(), req.Msg, resp)
	}
	return connect.NewResponse(resp), nil
}

// GetNewChatNudgeParameterizedModelPicker is the same for the picker with
// parameters.
func (a *Agent) GetNewChatNudgeParameterizedModelPicker(ctx context.Context, req *connect.Request[agentv1.GetNewChatNudgeParameterizedModelPickerRequest]) (*connect.Response[agentv1.GetNewChatNudgeParameterizedModelPickerResponse], error) {
	resp := &agentv1.GetNewChatNudgeParameterizedModelPickerResponse{}
	if !a.s.keygateModel(ctx, req.Header(), req.Msg.GetCurrentModel().GetModelId()) {
		a.s.upstream(ctx, agentv1connect.AgentServiceGetNewChatNudgeParameterizedModelPickerProcedure, req.Header(), req.Msg, resp)
	}
	return connect.NewResponse(resp), nil
}
