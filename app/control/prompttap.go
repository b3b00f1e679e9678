package control

import (
	"context"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/prefix"
	"keygate/ports"
)

// PromptTap is a ModelProvider that stores what the cache insight compares
// of each call's request in a PromptStore before passing the call on: the
// whole request when detailed mode is on for the call, otherwise only its
// shape (prefix.ShapeOf: digests, roles and sizes, none of the text).
// Storing is best effort: a failure never fails the model call, the
// insight then says the prompt was not kept.
type PromptTap struct {
	next     ports.ModelProvider
	prompts  ports.PromptStore
	detailed func() bool
	now      func() time.Time
}

var _ ports.ModelProvider = (*PromptTap)(nil)

// NewPromptTap wraps next. Until [PromptTap.DetailedWith] says otherwise
// it keeps shapes only.
func NewPromptTap(next ports.ModelProvider, prompts ports.PromptStore) *PromptTap {
	return &PromptTap{next: next, prompts: prompts, now: time.Now}
}

// DetailedWith makes the tap keep whole requests while detailed reports
// true. detailed is read once per call, like the provider client's
// detailed flag, so a call's request is kept whole exactly when its body
// is recorded. Call it before the first call.
func (t *PromptTap) DetailedWith(detailed func() bool) { t.detailed = detailed }

// Stream stores what is kept of call.Request under call.CallID while it
// streams from next: the store's write (and the digests of the shape) run
// beside the provider request instead of before it, and Stream returns
// once both are done, so the prompt is kept by then as before.
func (t *PromptTap) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	// The insight compares a call with its conversation's previous one: a
	// Tab prediction belongs to none, and Tab makes one on nearly every
	// keystroke pause, so keeping its prompt would be a store write per
	// keystroke for nothing.
	if call.Kind == callrecord.KindTab {
		return t.next.Stream(ctx, call)
	}
	at := t.now()
	detailed := t.detailed != nil && t.detailed()
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		p := ports.StoredPrompt{At: at}
		if detailed {
			req := call.Request
			p.Request = &req
		} else {
			shape := prefix.ShapeOf(call.Request)
			p.Shape = &shape
		}
		_ = t.prompts.PutPrompt(context.WithoutCancel(ctx), call.CallID, p)
	}()
	s, err := t.next.Stream(ctx, call)
	<-kept
	return s, err
}
