package agent

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/tools"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/access"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// prepare compiles the turn's next run, hands each part of the turn its
// share and starts the run. The steps' order is the one the client sees:
// the follow-up that opens the run is reported queued first, then the
// client is asked for what the run needs (blobs, the user's command), and
// only a run that compiled changes the parts.
func (s *session) prepare(ctx context.Context) error {
	if s.convID == "" {
		return classify(errInvalidRequest, errors.New("run request has no conversation id"))
	}
	action, base := s.opening()
	s.openedByFollowUp(action)
	p, err := s.compileRun(ctx, action, base)
	if err != nil {
		return err
	}
	s.apply(p)
	// The prediction projects from the checkpoints just begun.
	s.predict(p.head)
	if s.handle, err = s.h.o.Engine.Start(ctx, s.compiled.Run); err != nil {
		return fmt.Errorf("start run: %w", err)
	}
	return nil
}

// prepared is one run of the turn, compiled: what the turn's parts start
// the run from. compileRun builds it and apply hands it out; nothing
// changes it in between.
type prepared struct {
	// base is the client's state the run builds on; head the
	// conversation's head as read. compiled.Run.History holds the
	// messages the run builds on, those of compiled.Run.HistoryOf (head,
	// or the checkpoint an edited message branches from).
	base     *agentv1.ConversationStateStructure
	head     conversation.Checkpoint
	compiled compile.Output
	// log is the turn's logger with the run's id.
	log *zap.Logger
	// window is the model's context window.
	window int64
	// ui is the turn's steps so far, subagents the conversation's as the
	// run's action changes them; noTurn: the run adds no turn of its own.
	ui        *checkpoint.Turn
	subagents *checkpoint.Subagents
	noTurn    bool
}

// opening returns the action the next run compiles and the client's state
// it builds on: the request's, or for a follow-up (the transport's, or one
// that missed the previous run) its action on the last checkpoint sent.
func (s *session) opening() (*agentv1.ConversationAction, *agentv1.ConversationStateStructure) {
	req := s.turn.Request
	action, base := req.GetAction(), req.GetConversationState()
	next := s.turn.FollowUp
	if o := s.followUps.opening; o != nil {
		next = o.action
		if next == nil {
			next = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{
				UserMessageAction: &agentv1.UserMessageAction{UserMessage: o.user}}}
		}
	}
	if next != nil {
		action = next
		if l := s.blobs.latest(); l != nil {
			base = l
		}
	}
	return action, base
}

// compileRun compiles the run of action on base. It changes none of the
// turn's parts: its effects are its exchanges with the client (KV GETs,
// the user's command, during which other client messages are handled as
// whenever the turn waits for the client) and the store's import of what
// the client's checkpoint holds beyond it.
func (s *session) compileRun(ctx context.Context, action *agentv1.ConversationAction, base *agentv1.ConversationStateStructure) (*prepared, error) {
	req := s.turn.Request
	blobs, err := s.partBlobs(ctx, req, action)
	if err != nil {
		return nil, err
	}
	// Opening the conversation is also the tenancy check (the store
	// refuses another user's conversation), so nothing of the client's
	// checkpoint is trusted before it.
	head, history, err := s.history(ctx, req, action, base)
	if err != nil {
		return nil, err
	}
	images, err := s.images(ctx, req, action)
	if err != nil {
		return nil, err
	}
	in := compile.Input{Images: images, Schemas: s.h.schemas,
		RequestID: s.turn.RequestID, RunID: conversation.RunID(s.turn.RequestID, nonce()), Request: req,
		Action: action, ConversationID: s.convID, History: history, ConversationMode: base.GetMode(),
		Model: compile.Model(s.endpoint, s.config, req.GetRequestedModel()), Blobs: blobs,
		Now: s.h.o.Now(), Web: tools.WebAccess{Search: s.h.o.Search != nil, Fetch: s.h.o.Fetch != nil}, Goal: base.GetGoalState(),
	}
	if s.h.o.Memories != nil {
		// A store that cannot answer leaves the channel as it was: the
		// turn runs on the memories it last showed.
		if mem, err := s.h.o.Memories.Recall(ctx); err != nil {
			s.turnLog.Warn("memories unavailable; the turn keeps the ones it last showed", zap.Error(err))
		} else {
			in.Memories = &mem
		}
	}
	historyOf := head.ID()
	if um := action.GetUserMessageAction().GetUserMessage(); um != nil && um.GetMessageId() != "" {
		from, msgs, ok, err := s.editBase(ctx, head, history, um.GetMessageId())
		if err != nil {
			return nil, err
		}
		if ok {
			in.BaseCheckpointID, in.History, historyOf = from, msgs, from
		}
	}
	var held *llm.Assistant
	if action.GetResumeAction() != nil {
		if in.PendingRoundID, held, err = resumePending(base); err != nil {
			return nil, classify(errInvalidRequest, err)
		}
	}
	if cmd, execID, ok := compile.ShellCommandOf(action); ok {
		// The user's own command runs on the client before the turn is
		// compiled: its output is the turn's message.
		if in.Shell, err = s.userShell(ctx, cmd, execID); err != nil {
			return nil, err
		}
	}
	compiled, err := compile.Compile(in)
	if err != nil {
		return nil, classify(errInvalidRequest, err)
	}
	// The engine builds on the history read here rather than loading it
	// again, unless the head moved meanwhile.
	compiled.Run.History, compiled.Run.HistoryOf = in.History, historyOf
	if held != nil && compiled.Run.Action.Kind == run.ActionResume {
		compiled.Run.Action.PendingCalls = held
	}
	if compiled.Run.ParentRunID, compiled.Run.ParentToolCallID, err = s.parent(ctx); err != nil {
		return nil, err
	}
	p := &prepared{base: base, head: head, compiled: compiled, log: s.turnLog.With(zap.String("run_id", in.RunID)),
		window: in.Model.ContextWindow, subagents: &checkpoint.Subagents{Base: base},
		ui: &checkpoint.Turn{RequestID: s.turn.RequestID, User: compiled.UserMessage, Shell: compiled.Shell},
		// A turn that records nothing (a cancel with nothing running)
		// shows no turn of its own.
		noTurn: compiled.Run.Action.Kind == run.ActionRecord && len(compiled.Run.InitialMessages) == 0,
	}
	for _, c := range action.GetBackgroundTaskCompletionAction().GetCompletions() {
		p.subagents.Completed(c, s.h.o.Now())
	}
	if action.GetResumeAction() != nil {
		s.continueTurn(ctx, p.log, req, base, p.ui)
	}
	return p, nil
}

// apply hands each part of the turn its share of the run p; the parts'
// shares are apart, so their order does not matter.
func (s *session) apply(p *prepared) {
	s.compiled, s.log = p.compiled, p.log
	s.compacting = p.compiled.Run.Action.Kind == run.ActionCompact
	s.blobs.begin(p.log, p.base)
	s.view.begin(p)
}

// predict SETs the blobs of the checkpoint the user turn's commit will
// most likely make (its messages appended to the history just read) at
// once, so the client's ACKs travel while the engine claims the run and
// writes the messages. A commit that ends elsewhere projects its own
// checkpoint; blobs SET for nothing cost the client only storage.
func (s *session) predict(head conversation.Checkpoint) {
	s.view.predicted = nil
	p := s.view.predict(head, s.compiled.Run.InitialMessages)
	if p == nil {
		return
	}
	if _, err := s.blobs.set(p.blobs); err != nil {
		if !errors.Is(err, errStreamLost) {
			s.log.Info("blobs not sent ahead", zap.Error(err))
		}
		return
	}
	s.view.predicted = p
}

// history returns the conversation's head and messages, importing them
// from the client's checkpoint when the store has none.
func (s *session) history(ctx context.Context, req *agentv1.AgentRunRequest, action *agentv1.ConversationAction,
	base *agentv1.ConversationStateStructure) (conversation.Checkpoint, []conversation.Message, error) {
	head, err := s.h.o.Conversations.Open(ctx, s.convID)
	if errors.Is(err, access.ErrDenied) {
		// Another user's conversation looks like no conversation at all.
		return head, nil, errConversationNotFound
	}
	if err != nil {
		return head, nil, fmt.Errorf("open conversation: %w", err)
	}
	var msgs []conversation.Message
	if head.Len() > 0 { // a new conversation's root holds nothing to load
		if _, msgs, err = s.h.o.Conversations.Load(ctx, head.ID()); err != nil {
			return head, nil, fmt.Errorf("load conversation: %w", err)
		}
	}
	// A store that lost the conversation, or the end of it (a wiped or
	// restored database), gets back what the client's checkpoint holds
	// past what it has.
	if roots := base.GetRootPromptMessagesJson(); len(roots) > len(msgs) && extendsStore(roots, msgs) {
		return s.importRoots(ctx, head, msgs, req, action, base)
	}
	if m, ok := pendingAnswer(base); ok && action.GetResumeAction() != nil && extendsStore(base.GetRootPromptMessagesJson(), msgs) &&
		len(msgs) == len(base.GetRootPromptMessagesJson()) {
		return s.appendImported(ctx, head, msgs, []conversation.Message{m})
	}
	return head, msgs, nil
}

// parent names a subagent's parent run and tool call (empty for a root
// run): the parent request's latest run when Options.Runs can tell,
// otherwise the parent request id. A parent request with no run, or whose
// run is in a conversation the caller may not open, names no parent: the
// turn runs as a root run, and another user's request id is answered
// exactly as one nobody used (no run records another user's run as its
// parent, and the answer tells nothing of theirs).
func (s *session) parent(ctx context.Context) (runID, toolCallID string, err error) {
	p := s.turn.Parent
	if p.RequestID == "" {
		return "", "", nil
	}
	if s.h.o.Runs == nil {
		return p.RequestID, p.ToolCallID, nil
	}
	r, err := s.h.o.Runs.LatestForRequest(ctx, p.RequestID)
	switch {
	case errors.Is(err, ports.ErrNotFound):
		return "", "", nil
	case err != nil:
		return "", "", fmt.Errorf("find parent run: %w", err)
	}
	if _, err := s.h.o.Conversations.Head(ctx, r.ConversationID); errors.Is(err, access.ErrDenied) {
		return "", "", nil
	}
	return r.RunID, p.ToolCallID, nil
}

var (
	errConversationNotFound = fmt.Errorf("conversation %w", ports.ErrNotFound)
)

// resolve finds the turn's model among Keygate's models.
func (s *session) resolve(ctx context.Context) error {
	modelID := transport.ModelID(s.turn.Request)
	ep, cfg, err := s.h.o.Models.Endpoint(ctx, modelID)
	switch {
	case errors.Is(err, ports.ErrNotFound) || (err == nil && !cfg.Enabled):
		return &foreignModelError{model: modelID}
	case errors.Is(err, ports.ErrFillInModel):
		// A Cursor Tab model: the turn cannot start, and the message says
		// which model to change.
		return classify(errInvalidRequest, err)
	case err != nil:
		return classify(errUnavailable, fmt.Errorf("resolve model %q: %w", modelID, err))
	}
	s.endpoint, s.config = ep, cfg
	return nil
}

// editBase finds the checkpoint an edited or re-sent user message branches
// from: the last checkpoint before the first message of that input's
// event. ok is false when history does not hold the input (a new message)
// or holds it as its last turn without anything after (a retry).
func (s *session) editBase(ctx context.Context, head conversation.Checkpoint, history []conversation.Message, messageID string) (string, []conversation.Message, bool, error) {
	prefix := "cursor:user:" + messageID + ":"
	idx := -1
	for i, m := range history {
		ev, isCtx := conversation.RequestContextEvent(m.ID())
		if !isCtx {
			ev = m.RuntimeEventID()
		}
		if strings.HasPrefix(ev, prefix) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return "", nil, false, nil
	}
	cp := head
	for cp.Len() > idx {
		if cp.ParentID() == "" {
			return "", nil, false, nil
		}
		var err error
		if cp, _, err = s.h.o.Conversations.Load(ctx, cp.ParentID()); err != nil {
			return "", nil, false, fmt.Errorf("find edit base: %w", err)
		}
	}
	_, msgs, err := s.h.o.Conversations.Load(ctx, cp.ID())
	if err != nil {
		return "", nil, false, fmt.Errorf("load edit base: %w", err)
	}
	return cp.ID(), msgs, true, nil
}

func nonce() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return binary.BigEndian.Uint32(b[:])
}
