package control

import (
	"context"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// memoryService implements controlv1connect.MemoryServiceHandler.
type memoryService struct {
	memories *appcontrol.Memories
	log      *zap.Logger
}

var _ controlv1connect.MemoryServiceHandler = (*memoryService)(nil)

func (h *memoryService) ListMemories(ctx context.Context, req *connect.Request[controlv1.ListMemoriesRequest]) (*connect.Response[controlv1.ListMemoriesResponse], error) {
	ms, err := h.memories.List(ctx, req.Msg.GetUserId())
	if err != nil {
		return nil, toConnect(h.log, "ListMemories", err)
	}
	resp := &controlv1.ListMemoriesResponse{}
	for _, m := range ms {
		resp.Memories = append(resp.Memories, &controlv1.Memory{Id: m.ID, UserId: m.UserID, Title: m.Title, Knowledge: m.Knowledge,
			GitOrigin: m.GitOrigin, CreateTime: timestamppb.New(m.CreatedAt), UpdateTime: timestamppb.New(m.UpdatedAt)})
	}
	return connect.NewResponse(resp), nil
}

func (h *memoryService) DeleteMemory(ctx context.Context, req *connect.Request[controlv1.DeleteMemoryRequest]) (*connect.Response[controlv1.DeleteMemoryResponse], error) {
	if err := h.memories.Delete(ctx, req.Msg.GetId()); err != nil {
		return nil, toConnect(h.log, "DeleteMemory", err)
	}
	return connect.NewResponse(&controlv1.DeleteMemoryResponse{}), nil
}
