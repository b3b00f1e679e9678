package agent

import (
	"context"

	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/tools"
	"keygate/app/run"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// result finishes a call's result before the run gets it: an approved
// mode switch changes the run's tools from its next model call on and its
// result carries the new mode's paragraph (the instructions no longer
// hold one), an image the call produced is stored so the message refers to
// it by blob id, and glob rules that match a file the call touched come
// with it.
func (s *session) result(ctx context.Context, call *tools.Call, r llm.ToolResult) llm.ToolResult {
	card := call.Card()
	if to := card.GetSwitchModeToolCall().GetResult().GetSuccess().GetToModeId(); to != "" {
		if mode, ok := s.switchMode(to); ok {
			r.Content += "\n\n" + compile.ModeText(mode)
		}
	}
	if r.Image != nil && len(r.Image.Data) > 0 {
		r = s.storeImage(ctx, r)
	}
	if !r.IsError {
		r.Content += s.rulesFor(card)
	}
	return r
}

// switchMode gives the run the prompt and tools of mode id for the rest
// of the run, and the checkpoint records the mode for the next turns; ok
// says the run switched.
func (s *session) switchMode(id string) (compile.Mode, bool) {
	mode, ok := compile.ModeNamed(id)
	if !ok || s.compiled.Mode == compile.ModeSubagent || mode == s.compiled.Mode {
		return "", false
	}
	p, err := s.compiled.PromptFor(mode)
	if err != nil {
		s.log.Warn("mode switch not applied", zap.String("mode", id), zap.Error(err))
		return "", false
	}
	if s.handle.SwitchPrompt(p) != run.Applied {
		return "", false
	}
	s.compiled.Mode, s.view.mode = mode, mode.Wire()
	return mode, true
}

// storeImage stores a tool's image as a blob; without a blob store the
// model gets a note instead.
func (s *session) storeImage(ctx context.Context, r llm.ToolResult) llm.ToolResult {
	img := *r.Image
	if s.h.o.Blobs == nil {
		r.Image = nil
		r.Content += "\n(The image cannot be shown: this server keeps no images.)"
		return r
	}
	id := ports.BlobID(img.Data)
	if err := s.h.o.Blobs.Put(ctx, id, img.Data); err != nil {
		s.log.Warn("tool image not stored", zap.Error(err))
		r.Image = nil
		r.Content += "\n(The image could not be stored.)"
		return r
	}
	r.Image = &llm.Image{MIMEType: img.MIMEType, BlobID: id, Path: img.Path}
	return r
}

// rulesFor renders the glob rules that match a file the card's call
// touched and that the turn has not carried yet.
func (s *session) rulesFor(card *agentv1.ToolCall) string {
	file := touched(card)
	if file == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range s.compiled.Rules {
		if tools.KindOf(r) != tools.RuleGlob || slices.Contains(s.compiled.AppliedRules, r.GetFullPath()) ||
			!tools.RuleMatches(r, file, s.compiled.Workspaces) {
			continue
		}
		s.compiled.AppliedRules = append(s.compiled.AppliedRules, r.GetFullPath())
		fmt.Fprintf(&b, "\n\n<rule path=%q>\nThis rule applies to %s.\n%s\n</rule>", r.GetFullPath(), file, r.GetContent())
	}
	return b.String()
}

// touched is the file a card's call read or changed, if any.
func touched(card *agentv1.ToolCall) string {
	switch {
	case card.GetReadToolCall() != nil && len(card.GetReadToolCall().GetResult().GetSuccess().GetRelatedCursorRules()) == 0:
		return card.GetReadToolCall().GetArgs().GetPath()
	case card.GetEditToolCall() != nil:
		return card.GetEditToolCall().GetArgs().GetPath()
	case card.GetDeleteToolCall() != nil:
		return card.GetDeleteToolCall().GetArgs().GetPath()
	}
	return ""
}
