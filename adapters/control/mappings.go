package control

import (
	"context"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
	"keygate/ports"
)

// mappingService implements controlv1connect.ModelMappingServiceHandler.
type mappingService struct {
	mappings *appcontrol.Mappings
	log      *zap.Logger
}

var _ controlv1connect.ModelMappingServiceHandler = (*mappingService)(nil)

func mappingOf(m ports.ModelMapping) *controlv1.ModelMapping {
	return &controlv1.ModelMapping{CursorModel: m.CursorModel, Target: m.Target,
		CreateTime: timestamppb.New(m.CreatedAt), UpdateTime: timestamppb.New(m.UpdatedAt)}
}

func (h *mappingService) ListModelMappings(ctx context.Context, _ *connect.Request[controlv1.ListModelMappingsRequest]) (*connect.Response[controlv1.ListModelMappingsResponse], error) {
	ms, err := h.mappings.List(ctx)
	if err != nil {
		return nil, toConnect(h.log, "ListModelMappings", err)
	}
	resp := &controlv1.ListModelMappingsResponse{}
	for _, m := range ms {
		resp.Mappings = append(resp.Mappings, mappingOf(m))
	}
	return connect.NewResponse(resp), nil
}

func (h *mappingService) SetModelMapping(ctx context.Context, req *connect.Request[controlv1.SetModelMappingRequest]) (*connect.Response[controlv1.SetModelMappingResponse], error) {
	m, err := h.mappings.Set(ctx, req.Msg.GetCursorModel(), req.Msg.GetTarget())
	if err != nil {
		return nil, toConnect(h.log, "SetModelMapping", err)
	}
	return connect.NewResponse(&controlv1.SetModelMappingResponse{Mapping: mappingOf(m)}), nil
}

func (h *mappingService) DeleteModelMapping(ctx context.Context, req *connect.Request[controlv1.DeleteModelMappingRequest]) (*connect.Response[controlv1.DeleteModelMappingResponse], error) {
	if err := h.mappings.Delete(ctx, req.Msg.GetCursorModel()); err != nil {
		return nil, toConnect(h.log, "DeleteModelMapping", err)
	}
	return connect.NewResponse(&controlv1.DeleteModelMappingResponse{}), nil
}
