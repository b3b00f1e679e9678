package unary

import (
	"context"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// DefaultConfigVersion is GetServerConfig.config_version unless configured.
const DefaultConfigVersion = "keygate_agent_v1"

// Options configure Services.
type Options struct {
	// ConfigVersion is reported as config_version (DefaultConfigVersion when
	// empty).
	ConfigVersion string
	// AgentURL is the origin of Keygate's HTTP/2 listener for
	// AgentService/Run (e.g. "https://127.0.0.1:47321"). When empty the
	// client is told to keep HTTP/2 off and use RunSSE + BidiAppend.
	AgentURL string
	// Catalog lists Keygate's models; nil means Keygate offers none.
	Catalog Catalog
	// Upstream is Cursor's backend for merged model lists; nil means local
	// answers only.
	Upstream Upstream
	// Mapped names, by Cursor model id, the Keygate model or alias each
	// mapped id of Cursor's own runs on (app/control.Publishing.Mapped);
	// nil for none. The picker's entries for those ids say so.
	Mapped func(ctx context.Context) (map[string]string, error)
	// Knowledge keeps users' memories (the KnowledgeBase routes); nil
	// leaves those routes to Cursor.
	Knowledge Knowledge
	// Now is the clock for ServerTime (time.Now when nil).
	Now func() time.Time
}

// Services implements the unary aiserver.v1 and agent.v1 RPCs Keygate
// answers itself.
type Services struct {
	// The Tab methods of AiService are served by adapters/cursor/tab and
	// never mounted from here (only listed procedures are mounted).
	aiserverv1connect.UnimplementedAiServiceHandler

	opts Options
	log  *zap.Logger
}

var (
	_ aiserverv1connect.AiServiceHandler           = (*Services)(nil)
	_ aiserverv1connect.ServerConfigServiceHandler = (*Services)(nil)
	_ aiserverv1connect.NetworkServiceHandler      = (*Services)(nil)
)

// New returns the unary services.
func New(opts Options, log *zap.Logger) *Services {
	if opts.ConfigVersion == "" {
		opts.ConfigVersion = DefaultConfigVersion
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Services{opts: opts, log: log}
}

// GetServerConfig implements both AiService and ServerConfigService.
func (s *Services) GetServerConfig(_ context.Context, _ *connect.Request[aiserverv1.GetServerConfigRequest]) (*connect.Response[aiserverv1.GetServerConfigResponse], error) {
	resp := &aiserverv1.GetServerConfigResponse{
		ConfigVersion:            s.opts.ConfigVersion,
		Http2Config:              aiserverv1.Http2Config_HTTP2_CONFIG_FORCE_ALL_DISABLED,
		CliSandboxDefaultEnabled: proto.Bool(true),
	}
	if s.opts.AgentURL != "" {
		resp.Http2Config = aiserverv1.Http2Config_HTTP2_CONFIG_UNSPECIFIED
		resp.AgentUrlConfig = &aiserverv1.AgentUrlConfig{AgentnUrl: s.opts.AgentURL}
	}
	return connect.NewResponse(resp), nil
}

// IsConnected always answers 200: any other answer makes the client abort
// slow requests as "offline" (docs/cursor-protocol.md, "IsConnected must
// answer 200").
func (s *Services) IsConnected(context.Context, *connect.Request[aiserverv1.IsConnectedRequest]) (*connect.Response[aiserverv1.IsConnectedResponse], error) {
	return connect.NewResponse(&aiserverv1.IsConnectedResponse{}), nil
}

// ServerTime answers with the server clock in milliseconds.
func (s *Services) ServerTime(context.Context, *connect.Request[aiserverv1.ServerTimeRequest]) (*connect.Response[aiserverv1.ServerTimeResponse], error) {
	now := float64(s.opts.Now().UnixMilli())
	return connect.NewResponse(&aiserverv1.ServerTimeResponse{ReceiveTimestamp: now, TransmitTimestamp: now}), nil
}

// models asks the catalog; a failing catalog is logged and treated as empty
// so that the client still gets Cursor's own models.
func (s *Services) models(ctx context.Context, h http.Header) []Model {
	if s.opts.Catalog == nil {
		return nil
	}
	ms, err := s.opts.Catalog.Models(ctx, h)
	if err != nil {
		s.log.Warn("model catalog unavailable; answering without Keygate models", zap.Error(err))
		return nil
	}
	return ms
}

// upstream fills resp from Cursor's backend; false when there is none or it
// failed.
func (s *Services) upstream(ctx context.Context, procedure string, h http.Header, req, resp proto.Message) bool {
	if s.opts.Upstream == nil {
		return false
	}
	if err := s.opts.Upstream.Call(ctx, procedure, h, req, resp); err != nil {
		s.log.Info("upstream model list unavailable; answering with Keygate models only",
			zap.String("procedure", procedure), zap.Error(err))
		proto.Reset(resp)
		return false
	}
	return true
}

// keygateModel reports whether id is one of the caller's Keygate models.
func (s *Services) keygateModel(ctx context.Context, h http.Header, id string) bool {
	for _, m := range s.models(ctx, h) {
		if m.ID == id {
			return true
		}
	}
	return false
}
