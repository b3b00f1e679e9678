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
// client selected, streaming its text back as Cursor text deltas.
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
	text := req.GetAction().GetUserMessageAction().GetUserMessage().GetText()
	stream, err := h.provider.Stream(ctx, ports.ModelCall{CallID: turn.RequestID + ":0", RunID: turn.RequestID,
		ConversationID: req.GetConversationId(), Endpoint: ep, Request: llm.Request{Model: cfg.ModelID,
			Messages: []llm.Message{{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}}}}})
	if err != nil {
		return fmt.Errorf("call provider: %w", err)
	}
	defer stream.Close()
	var answer strings.Builder
	for stream.Next() {
		if ev := stream.Event(); ev.Kind == llm.EventTextDelta {
			answer.WriteString(ev.Text)
			if err := turn.Output.Send(cursortest.TextDelta(ev.Text)); err != nil {
				return err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	return h.remember(ctx, req.GetConversationId(), turn.RequestID, text, answer.String())
}

// remember appends the question and the answer to the conversation, so the
// Conversations page has something to show.
func (h turnHandler) remember(ctx context.Context, convID, requestID, question, answer string) error {
	head, err := h.convs.Open(ctx, convID)
	if err != nil {
		return err
	}
	q, err := conversation.NewText(requestID+":user", llm.RoleUser, conversation.OriginUser, question)
	if err != nil {
		return err
	}
	a, err := conversation.NewMessage(conversation.MessageSpec{ID: requestID + ":assistant", Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: answer}})
	if err != nil {
		return err
	}
	_, err = h.convs.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, q, a)})
	return err
}
