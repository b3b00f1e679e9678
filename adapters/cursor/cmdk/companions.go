package cmdk

import (
	"context"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// RerankCmdKContext answers that no reranking was done; context named by
// hash only is asked for in full, as StreamCmdK would.
func (s *service) RerankCmdKContext(_ context.Context, req *connect.Request[aiserverv1.RerankCmdKContextRequest]) (*connect.Response[aiserverv1.RerankCmdKContextResponse], error) {
	out := &aiserverv1.RerankCmdKContextResponse{DidCall: proto.Bool(false)}
	if missing := hashes(req.Msg.GetContextItems()); len(missing) > 0 {
		out.Response = &aiserverv1.RerankCmdKContextResponse_MissingContextItems{MissingContextItems: &aiserverv1.MissingContextItems{MissingContextItemHashes: missing}}
	}
	return connect.NewResponse(out), nil
}

// RerankTerminalCmdKContext is RerankCmdKContext for the terminal.
func (s *service) RerankTerminalCmdKContext(_ context.Context, req *connect.Request[aiserverv1.RerankTerminalCmdKContextRequest]) (*connect.Response[aiserverv1.RerankTerminalCmdKContextResponse], error) {
	out := &aiserverv1.RerankTerminalCmdKContextResponse{}
	if missing := hashes(req.Msg.GetContextItems()); len(missing) > 0 {
		out.Response = &aiserverv1.RerankTerminalCmdKContextResponse_MissingContextItems{MissingContextItems: &aiserverv1.MissingContextItems{MissingContextItemHashes: missing}}
	}
	return connect.NewResponse(out), nil
}

// GetRelevantChunks ends at once: the edit's prompt is built from what the
// request carries, so there are no chunks to add.
func (s *service) GetRelevantChunks(context.Context, *connect.Request[aiserverv1.GetRelevantChunksRequest], *connect.ServerStream[aiserverv1.StreamGetRelevantChunksResponseContextWrapped]) error {
	return nil
}

// ReportCmdKFate accepts what the user did with an inline edit; it is
// logged, not stored (the call record already holds the request).
func (s *service) ReportCmdKFate(_ context.Context, req *connect.Request[aiserverv1.ReportCmdKFateRequest]) (*connect.Response[aiserverv1.ReportCmdKFateResponse], error) {
	s.log.Debug("inline edit fate", zap.String("request_id", req.Msg.GetRequestId()), zap.Stringer("op", req.Msg.GetFate()))
	return connect.NewResponse(&aiserverv1.ReportCmdKFateResponse{}), nil
}
