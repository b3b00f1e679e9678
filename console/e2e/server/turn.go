package main

import (
	"context"
	"fmt"
	"strings"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	appcontrol "keygate/app/control"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// turnHandler answers a Cursor turn with one provider call of the model the
// client selected: the conversation's history plus the new question. It
// streams the answer back as Cursor text deltas and appends question and
// answer to the conversation.
type turnHandler struct {
	models   *appcontrol.Models
	provider ports.ModelProvider
	convs    ports.ConversationStore
}

var _ transport.RunHandler = turnHandler{}

func (h turnHandler) ServeRun(ctx context.Context, turn *transport.Turn) error {
	req := turn.Request
	ep, cfg, err := h.models.Endpoint(ctx, req.GetRequestedModel().GetModelId())
	if err != nil {
		return fmt.Errorf("resolve model: %w", err)
	}
	head, err := h.convs.Open(ctx, req.GetConversationId())
	if err != nil {
		return err
	}
	_, history, err := h.convs.Load(ctx, head.ID())
	if err != nil {
		return err
	}
	question, err := conversation.NewText(turn.RequestID+":user", llm.RoleUser, conversation.OriginUser,
		req.GetAction().GetUserMessageAction().GetUserMessage().GetText())
	if err != nil {
		return err
	}
	prompt := llm.Request{Model: cfg.ModelID, Instructions: "You are a helpful assistant."}
	for _, m := range append(history, question) {
		prompt.Messages = append(prompt.Messages, m.LLM())
	}
	stream, err := h.provider.Stream(ctx, ports.ModelCall{CallID: turn.RequestID + ":0", RunID: turn.RequestID,
		ConversationID: req.GetConversationId(), Endpoint: ep, Request: prompt})
	if err != nil {
		return fmt.Errorf("call provider: %w", err)
	}
	defer stream.Close()
	var text strings.Builder
	for stream.Next() {
		if ev := stream.Event(); ev.Kind == llm.EventTextDelta {
			text.WriteString(ev.Text)
			if err := turn.Output.Send(cursortest.TextDelta(ev.Text)); err != nil {
				return err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	answer, err := conversation.NewMessage(conversation.MessageSpec{ID: turn.RequestID + ":assistant", Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: text.String()}})
	if err != nil {
		return err
	}
	_, err = h.convs.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, question, answer)})
	return err
}
