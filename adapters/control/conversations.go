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

// conversationService implements controlv1connect.ConversationServiceHandler.
type conversationService struct {
	conversations *appcontrol.Conversations
	log           *zap.Logger
}

var _ controlv1connect.ConversationServiceHandler = (*conversationService)(nil)

func (h *conversationService) ListConversations(ctx context.Context, req *connect.Request[controlv1.ListConversationsRequest]) (*connect.Response[controlv1.ListConversationsResponse], error) {
	var after *ports.ConversationSummary
	if tok := req.Msg.GetPageToken(); tok != "" {
		t, id, err := decodeToken(tok)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, err)
		}
		after = &ports.ConversationSummary{ID: id, UpdatedAt: t}
	}
	page, err := h.conversations.Search(ctx, req.Msg.GetSearch(), after, int(req.Msg.GetPageSize()))
	if err != nil {
		return nil, toConnect(h.log, "ListConversations", err)
	}
	resp := &controlv1.ListConversationsResponse{}
	for _, c := range page.Conversations {
		resp.Conversations = append(resp.Conversations, &controlv1.Conversation{Id: c.ID, HeadCheckpointId: c.HeadCheckpointID,
			CreateTime: timestamppb.New(c.CreatedAt), UpdateTime: timestamppb.New(c.UpdatedAt),
			Title: c.Title, UserId: c.UserID, ModelId: c.Model, ModelName: c.ModelName, Turns: int32(c.Turns)})
	}
	if n := page.Next; n != nil {
		resp.NextPageToken = encodeToken(n.UpdatedAt, n.ID)
	}
	return connect.NewResponse(resp), nil
}

func (h *conversationService) DeleteConversation(ctx context.Context, req *connect.Request[controlv1.DeleteConversationRequest]) (*connect.Response[controlv1.DeleteConversationResponse], error) {
	if err := h.conversations.Delete(ctx, req.Msg.GetConversationId()); err != nil {
		return nil, toConnect(h.log, "DeleteConversation", err)
	}
	return connect.NewResponse(&controlv1.DeleteConversationResponse{}), nil
}

func (h *conversationService) GetBranchTree(ctx context.Context, req *connect.Request[controlv1.GetBranchTreeRequest]) (*connect.Response[controlv1.GetBranchTreeResponse], error) {
	tree, err := h.conversations.Tree(ctx, req.Msg.GetConversationId())
	if err != nil {
		return nil, toConnect(h.log, "GetBranchTree", err)
	}
	resp := &controlv1.GetBranchTreeResponse{HeadCheckpointId: tree.HeadID}
	for _, c := range tree.Checkpoints {
		resp.Checkpoints = append(resp.Checkpoints, &controlv1.Checkpoint{Id: c.ID, ParentId: c.ParentID,
			Length: int64(c.Length), CreateTime: ts(c.CreatedAt)})
	}
	return connect.NewResponse(resp), nil
}

func (h *conversationService) GetCheckpointMessages(ctx context.Context, req *connect.Request[controlv1.GetCheckpointMessagesRequest]) (*connect.Response[controlv1.GetCheckpointMessagesResponse], error) {
	msgs, err := h.conversations.Messages(ctx, req.Msg.GetCheckpointId())
	if err != nil {
		return nil, toConnect(h.log, "GetCheckpointMessages", err)
	}
	resp := &controlv1.GetCheckpointMessagesResponse{}
	for _, m := range msgs {
		resp.Messages = append(resp.Messages, &controlv1.Message{Id: m.ID(), Role: m.Role().String(), Text: messageText(m.LLM())})
	}
	return connect.NewResponse(resp), nil
}
