package main

import (
	"context"
	"fmt"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	appcontrol "keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

// turnHandler answers a Cursor turn with one provider call of the model the
// client selected, streaming its text back as Cursor text deltas.
type turnHandler struct {
	models   *appcontrol.Models
	provider ports.ModelProvider
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
	for stream.Next() {
		if ev := stream.Event(); ev.Kind == llm.EventTextDelta {
			if err := turn.Output.Send(cursortest.TextDelta(ev.Text)); err != nil {
				return err
			}
		}
	}
	return stream.Err()
}
