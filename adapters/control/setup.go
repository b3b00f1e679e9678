package control

import (
	"context"

	"connectrpc.com/connect"

	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// Setup is what the Connect Cursor page shows; the composition root knows
// the proxy address, the CA route and the token.
type Setup struct {
	ProxyURL         string
	PersonalToken    string
	CACertificateURL string
	SetupCommand     string
	// AgentTools are the tools Keygate runs itself and whether it offers
	// them.
	AgentTools []AgentTool
	// CodingAgents point other coding agents at the compatible API.
	CodingAgents []CodingAgent
}

// CodingAgent is how to point one coding agent at Keygate; its text names
// Keygate's address as {{ORIGIN}}.
type CodingAgent struct {
	Name, Command, Settings string
}

// AgentTool is one server-side tool of the agent: Detail says through what
// it runs, or what an administrator sets to offer it.
type AgentTool struct {
	Name    string
	Offered bool
	Detail  string
}

// setupService implements controlv1connect.SetupServiceHandler.
type setupService struct {
	setup func(ctx context.Context) (Setup, error)
}

var _ controlv1connect.SetupServiceHandler = (*setupService)(nil)

func (h *setupService) GetCursorSetup(ctx context.Context, _ *connect.Request[controlv1.GetCursorSetupRequest]) (*connect.Response[controlv1.GetCursorSetupResponse], error) {
	s, err := h.setup(ctx)
	if err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, err)
	}
	resp := &controlv1.GetCursorSetupResponse{ProxyUrl: s.ProxyURL, PersonalToken: s.PersonalToken,
		CaCertificateUrl: s.CACertificateURL, SetupCommand: s.SetupCommand}
	for _, t := range s.AgentTools {
		resp.AgentTools = append(resp.AgentTools, &controlv1.AgentTool{Name: t.Name, Offered: t.Offered, Detail: t.Detail})
	}
	for _, a := range s.CodingAgents {
		resp.CodingAgents = append(resp.CodingAgents, &controlv1.CodingAgentSetup{Name: a.Name, Command: a.Command, Settings: a.Settings})
	}
	return connect.NewResponse(resp), nil
}
