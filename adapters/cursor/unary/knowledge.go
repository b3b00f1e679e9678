package unary

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

// Knowledge keeps the calling user's memories (Cursor's KnowledgeBase
// routes); app/memories.Service implements it. Every method acts for the
// user on ctx alone, returns ports.ErrNotFound for a memory that is not
// theirs and an error wrapping ports.ErrInvalidMemory for a memory it
// refuses (answered InvalidArgument), and honours ctx cancellation.
type Knowledge interface {
	Add(ctx context.Context, title, knowledge, gitOrigin string) (ports.Memory, error)
	List(ctx context.Context, limit int) ([]ports.Memory, error)
	Update(ctx context.Context, id, title, knowledge string) error
	Remove(ctx context.Context, id string) error
}

// KnowledgeBaseAdd stores a memory for the calling user.
func (s *Services) KnowledgeBaseAdd(ctx context.Context, req *connect.Request[aiserverv1.KnowledgeBaseAddRequest]) (*connect.Response[aiserverv1.KnowledgeBaseAddResponse], error) {
	m, err := s.opts.Knowledge.Add(ctx, req.Msg.GetTitle(), req.Msg.GetKnowledge(), req.Msg.GetGitOrigin())
	if err != nil {
		return nil, s.knowledgeError("KnowledgeBaseAdd", err)
	}
	return connect.NewResponse(&aiserverv1.KnowledgeBaseAddResponse{Success: true, Id: m.ID}), nil
}

// KnowledgeBaseList lists the calling user's memories, oldest first, as
// Cursor's settings show them. The repository filter is not applied:
// Keygate's memories are the user's, wherever they were added.
func (s *Services) KnowledgeBaseList(ctx context.Context, req *connect.Request[aiserverv1.KnowledgeBaseListRequest]) (*connect.Response[aiserverv1.KnowledgeBaseListResponse], error) {
	ms, err := s.opts.Knowledge.List(ctx, int(max(req.Msg.GetLimit(), 0)))
	if err != nil {
		return nil, s.knowledgeError("KnowledgeBaseList", err)
	}
	resp := &aiserverv1.KnowledgeBaseListResponse{Success: true}
	for _, m := range ms {
		resp.AllResults = append(resp.AllResults, &aiserverv1.KnowledgeBaseListResponse_Item{
			Id: m.ID, Title: m.Title, Knowledge: m.Knowledge, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano)})
	}
	return connect.NewResponse(resp), nil
}

// KnowledgeBaseUpdate edits one of the calling user's memories; a memory
// that is not theirs answers success false, as a missing one.
func (s *Services) KnowledgeBaseUpdate(ctx context.Context, req *connect.Request[aiserverv1.KnowledgeBaseUpdateRequest]) (*connect.Response[aiserverv1.KnowledgeBaseUpdateResponse], error) {
	err := s.opts.Knowledge.Update(ctx, req.Msg.GetId(), req.Msg.GetTitle(), req.Msg.GetKnowledge())
	if errors.Is(err, ports.ErrNotFound) {
		return connect.NewResponse(&aiserverv1.KnowledgeBaseUpdateResponse{}), nil
	}
	if err != nil {
		return nil, s.knowledgeError("KnowledgeBaseUpdate", err)
	}
	return connect.NewResponse(&aiserverv1.KnowledgeBaseUpdateResponse{Success: true}), nil
}

// KnowledgeBaseRemove deletes one of the calling user's memories; a memory
// that is not theirs answers success false, as a missing one.
func (s *Services) KnowledgeBaseRemove(ctx context.Context, req *connect.Request[aiserverv1.KnowledgeBaseRemoveRequest]) (*connect.Response[aiserverv1.KnowledgeBaseRemoveResponse], error) {
	err := s.opts.Knowledge.Remove(ctx, req.Msg.GetId())
	if errors.Is(err, ports.ErrNotFound) {
		return connect.NewResponse(&aiserverv1.KnowledgeBaseRemoveResponse{}), nil
	}
	if err != nil {
		return nil, s.knowledgeError("KnowledgeBaseRemove", err)
	}
	return connect.NewResponse(&aiserverv1.KnowledgeBaseRemoveResponse{Success: true}), nil
}

// knowledgeError answers a refused memory InvalidArgument with its reason,
// and anything else Internal without one (the store's error is logged).
func (s *Services) knowledgeError(op string, err error) error {
	if errors.Is(err, ports.ErrInvalidMemory) {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return connect.NewError(connect.CodeCanceled, err)
	}
	s.log.Warn("memories unavailable", zap.String("op", op), zap.Error(err))
	return connect.NewError(connect.CodeInternal, errors.New("memories unavailable"))
}
