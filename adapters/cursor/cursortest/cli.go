package cursortest

import (
	"context"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// CLI simulates cursor-agent, Cursor's command-line Agent, over real HTTP:
// before a run it asks which model intents are allowed, the usable models
// (agent.v1, the models with their details) and the default model, and the
// user-available models with their parameters (aiserver.v1
// AvailableModels, as `cursor-agent --list-models` does); a run then goes
// as the editor's does (Client).
type CLI struct {
	agent agentv1connect.AgentServiceClient
	ai    aiserverv1connect.AiServiceClient
}

// CLIModels is what the CLI learned before its first run.
type CLIModels struct {
	Intents []string
	Usable  []*agentv1.ModelDetails
	Default *agentv1.ModelDetails
	// Available are the picker's entries by name, with their parameters.
	Available map[string]*aiserverv1.AvailableModelsResponse_AvailableModel
}

// NewCLI returns a CLI for the server at baseURL.
func NewCLI(baseURL string, hc *http.Client) *CLI {
	return &CLI{
		agent: agentv1connect.NewAgentServiceClient(hc, baseURL),
		ai:    aiserverv1connect.NewAiServiceClient(hc, baseURL),
	}
}

// Models lists the models as the CLI does before a run; any route that
// fails is an error naming it.
func (c *CLI) Models(ctx context.Context) (CLIModels, error) {
	var out CLIModels
	intents, err := c.agent.GetAllowedModelIntents(ctx, connect.NewRequest(&agentv1.GetAllowedModelIntentsRequest{}))
	if err != nil {
		return out, fmt.Errorf("GetAllowedModelIntents: %w", err)
	}
	out.Intents = intents.Msg.GetModelIntents()
	usable, err := c.agent.GetUsableModels(ctx, connect.NewRequest(&agentv1.GetUsableModelsRequest{}))
	if err != nil {
		return out, fmt.Errorf("GetUsableModels: %w", err)
	}
	out.Usable = usable.Msg.GetModels()
	def, err := c.agent.GetDefaultModelForCli(ctx, connect.NewRequest(&agentv1.GetDefaultModelForCliRequest{}))
	if err != nil {
		return out, fmt.Errorf("GetDefaultModelForCli: %w", err)
	}
	out.Default = def.Msg.GetModel()
	avail, err := c.ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{
		UseModelParameters: proto.Bool(true), Scope: aiserverv1.AvailableModelsScope_AVAILABLE_MODELS_SCOPE_USER_AVAILABLE.Enum()}))
	if err != nil {
		return out, fmt.Errorf("AvailableModels: %w", err)
	}
	out.Available = map[string]*aiserverv1.AvailableModelsResponse_AvailableModel{}
	for _, m := range avail.Msg.GetModels() {
		out.Available[m.GetName()] = m
	}
	return out, nil
}
