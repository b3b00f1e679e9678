package agent

// This file resolves what a run request refers to but does not carry:
// request-context part blobs, attached images and, for a conversation the
// store lacks, the checkpoint's roots.

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/compile"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// importRoots restores what the store lacks of a conversation from the
// client's checkpoint (a forked chat, or a server that lost its store or
// the end of it): the roots past the messages the store holds (have), each
// a message in Keygate's canonical encoding, from pre_fetched_blobs or the
// client's KV store; then a final answer the checkpoint still holds as
// pending. Roots in another format are not imported: a conversation the
// store lacks entirely then starts empty, one it holds stays as it is.
func (s *session) importRoots(ctx context.Context, head conversation.Checkpoint, have []conversation.Message, req *agentv1.AgentRunRequest,
	action *agentv1.ConversationAction, base *agentv1.ConversationStateStructure) (conversation.Checkpoint, []conversation.Message, error) {
	pre := map[string][]byte{}
	for _, b := range req.GetPreFetchedBlobs() {
		pre[string(b.GetId())] = b.GetValue()
	}
	var msgs []conversation.Message
	for _, id := range base.GetRootPromptMessagesJson()[len(have):] {
		data, ok := pre[string(id)]
		if !ok {
			var err error
			if data, err = s.blobs.get(ctx, id); err != nil {
				return head, nil, classify(errClientBlob, fmt.Errorf("import conversation: %w", err))
			}
		}
		m, err := conversation.DecodeMessage(data)
		if err != nil {
			s.log.Info("checkpoint roots are not Keygate messages; not imported")
			return head, have, nil
		}
		msgs = append(msgs, m)
	}
	if m, ok := pendingAnswer(base); ok && action.GetResumeAction() != nil {
		msgs = append(msgs, m)
	}
	return s.appendImported(ctx, head, have, msgs)
}

// appendImported appends imported messages to the conversation's head.
func (s *session) appendImported(ctx context.Context, head conversation.Checkpoint, have, msgs []conversation.Message) (conversation.Checkpoint, []conversation.Message, error) {
	d, err := s.h.o.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(head, msgs...)})
	if err != nil {
		return head, nil, fmt.Errorf("import conversation: %w", err)
	}
	s.log.Info("conversation imported from the client's checkpoint", zap.Int("held", len(have)), zap.Int("imported", len(msgs)))
	return d.Checkpoint, append(have[:len(have):len(have)], msgs...), nil
}

// images resolves the user's attached images (inline, pre-fetched or KV
// GET) and stores them, so messages refer to them by blob id. nil leaves
// the choice to Compile (no blob store configured, or no images).
func (s *session) images(ctx context.Context, req *agentv1.AgentRunRequest, action *agentv1.ConversationAction) ([]llm.Image, error) {
	refs := compile.ImageRefs(action)
	if s.h.o.Blobs == nil || len(refs) == 0 {
		return nil, nil
	}
	pre := map[string][]byte{}
	for _, b := range req.GetPreFetchedBlobs() {
		pre[string(b.GetId())] = b.GetValue()
	}
	out := []llm.Image{}
	for _, r := range refs {
		data := r.Data
		if len(data) == 0 {
			var ok bool
			if data, ok = pre[string(r.BlobID)]; !ok {
				var err error
				if data, err = s.blobs.get(ctx, r.BlobID); err != nil {
					return nil, classify(errClientBlob, fmt.Errorf("attached image: %w", err))
				}
			}
		}
		id := ports.BlobID(data)
		if err := s.h.o.Blobs.Put(ctx, id, data); err != nil {
			return nil, fmt.Errorf("store attached image: %w", err)
		}
		mime := r.MIMEType
		if mime == "" {
			mime = "image/png"
		}
		out = append(out, llm.Image{MIMEType: mime, BlobID: id, Path: r.Path})
	}
	return out, nil
}

// partBlobs resolves the request-context part blobs: from
// pre_fetched_blobs, else from the client's KV store.
func (s *session) partBlobs(ctx context.Context, req *agentv1.AgentRunRequest, action *agentv1.ConversationAction) (map[string][]byte, error) {
	ids := compile.PartIDs(action)
	if len(ids) == 0 {
		return nil, nil
	}
	blobs := map[string][]byte{}
	for _, b := range req.GetPreFetchedBlobs() {
		blobs[string(b.GetId())] = b.GetValue()
	}
	for _, id := range ids {
		if _, ok := blobs[string(id)]; ok {
			continue
		}
		data, err := s.blobs.get(ctx, id)
		if err != nil {
			return nil, classify(errClientBlob, fmt.Errorf("request context part: %w", err))
		}
		blobs[string(id)] = data
	}
	return blobs, nil
}

// continueTurn makes ui, a resumed run's steps, continue the client's last
// turn on base (its user message and earlier steps stay, the resumed steps
// follow). When the turn cannot be read the resumed steps show as a turn
// of their own.
func (s *session) continueTurn(ctx context.Context, log *zap.Logger, req *agentv1.AgentRunRequest, base *agentv1.ConversationStateStructure, ui *checkpoint.Turn) {
	turns := base.GetTurns()
	if len(turns) == 0 {
		return
	}
	data, err := s.clientBlob(ctx, req, turns[len(turns)-1])
	if err != nil {
		log.Info("last turn not readable; the resumed steps get a turn of their own", zap.Error(err))
		return
	}
	if err := ui.Continue(data); err != nil {
		log.Info("last turn not continued", zap.Error(err))
		return
	}
	s.placePending(ctx, log, req, base, ui)
}

// maxPendingScan bounds the steps of the continued turn read to find the
// cards of its pending calls: they are the turn's last cards (a round's
// cards start together, after its text), so a few steps from the end
// suffice, and a long turn costs no GET per step.
const maxPendingScan = 64

// placePending finds, from the continued turn's last step back, the cards
// of the calls base left pending, which the resumed run runs again: the
// resumed card takes the abandoned one's place, so the chat shows one card
// per call and it completes (a card not found within maxPendingScan steps
// is shown again after the turn's steps).
func (s *session) placePending(ctx context.Context, log *zap.Logger, req *agentv1.AgentRunRequest, base *agentv1.ConversationStateStructure, ui *checkpoint.Turn) {
	_, held, err := resumePending(base)
	if err != nil || held == nil {
		return
	}
	want := map[string]bool{}
	for _, c := range held.Calls {
		want[c.CallID] = true
	}
	steps := ui.PriorSteps()
	for i := len(steps) - 1; i >= 0 && i >= len(steps)-maxPendingScan && len(want) > 0; i-- {
		data, err := s.clientBlob(ctx, req, steps[i])
		if err != nil {
			log.Info("step of the continued turn not readable", zap.Error(err))
			return
		}
		id, err := ui.PriorStep(i, data)
		if err != nil {
			log.Info("step of the continued turn not read", zap.Error(err))
			continue
		}
		delete(want, id)
	}
}

// clientBlob is a blob of the client's store: pre-fetched with the run
// request, else read by KV GET.
func (s *session) clientBlob(ctx context.Context, req *agentv1.AgentRunRequest, id []byte) ([]byte, error) {
	for _, b := range req.GetPreFetchedBlobs() {
		if string(b.GetId()) == string(id) {
			return b.GetValue(), nil
		}
	}
	return s.blobs.get(ctx, id)
}
