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
	return connect.NewResponse(&controlv1.GetCursorSetupResponse{ProxyUrl: s.ProxyURL, PersonalToken: s.PersonalToken,
		CaCertificateUrl: s.CACertificateURL, SetupCommand: s.SetupCommand}), nil
}
