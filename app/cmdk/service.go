package cmdk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"keygate/domain/callrecord"
	"keygate/domain/cmdk"
	"keygate/domain/gitmsg"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// ErrOff means the feature has no model: Keygate does not serve it.
var ErrOff = errors.New("no model configured for this feature")

// ErrNoCaller means the request carried no identity: every call is
// someone's, and its call record says whose.
var ErrNoCaller = fmt.Errorf("request without a caller: %w", identity.ErrNoUser)

// ErrEmptyAnswer means the model answered nothing usable (no command, an
// empty message or branch name).
var ErrEmptyAnswer = errors.New("the model gave no usable answer")

// Endpoints resolves a model or alias id to a routed endpoint of a chat
// model; *app/control.Catalog satisfies it.
type Endpoints interface {
	Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error)
}

// Options are the dependencies and settings of a Service.
type Options struct {
	Provider  ports.ModelProvider
	Endpoints Endpoints
	// EditModel returns the model or alias id of inline edits for the
	// caller on ctx; CommitModel that of commit messages and branch
	// names. "" means Keygate does not serve the feature.
	EditModel, CommitModel func(ctx context.Context) (string, error)
	Log                    *zap.Logger
	// Budgets of the prompts; zero values take the domain's defaults.
	EditBudget cmdk.Budget
	GitBudget  gitmsg.Budget
	// EditTokens caps an inline edit's answer (0: 8,192, room to rewrite
	// the largest selection the budget admits); the terminal's, a commit
	// message's and a branch name's caps are fixed (256, 1,024, 64).
	EditTokens int
}

// Service serves inline edits, terminal commands, commit messages and
// branch names. It is safe for concurrent use.
type Service struct{ o Options }

// New returns a Service over o.
func New(o Options) *Service {
	if o.EditTokens <= 0 {
		o.EditTokens = 8192
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	return &Service{o: o}
}

// EditModel returns the inline-edit model for the caller, "" when Keygate
// serves no inline edits.
func (s *Service) EditModel(ctx context.Context) (string, error) {
	id, err := s.o.EditModel(ctx)
	if err != nil {
		return "", fmt.Errorf("read inline-edit model: %w", err)
	}
	return id, nil
}

// CommitModel returns the model of commit messages and branch names for
// the caller, "" when Keygate serves neither.
func (s *Service) CommitModel(ctx context.Context) (string, error) {
	id, err := s.o.CommitModel(ctx)
	if err != nil {
		return "", fmt.Errorf("read commit-message model: %w", err)
	}
	return id, nil
}

// Edit streams the answer of an inline edit to emit: the replacement
// lines, each ended by "\n", as they complete, or in chat mode the
// answer's text as it comes. It returns ErrOff without a model,
// ErrNoCaller without an identity, the domain's refusals
// (cmdk.ErrNoInstruction, cmdk.ErrSelectionTooLarge), an error of emit as
// is and model errors wrapped.
func (s *Service) Edit(ctx context.Context, in cmdk.Input, emit func(string) error) error {
	p, err := cmdk.NewPrompt(in, s.o.EditBudget)
	if err != nil {
		return err
	}
	var dec *cmdk.EditDecoder
	if !in.Chat {
		dec = cmdk.NewEditDecoder(in.Selection)
	}
	feed := func(delta string) (string, bool) {
		if dec == nil {
			return delta, false
		}
		return dec.Feed(delta), dec.Enough()
	}
	finish := func() string {
		if dec == nil {
			return ""
		}
		return dec.Finish()
	}
	return s.call(ctx, s.EditModel, callrecord.KindCmdK, "cmdk", in.RequestID, p, s.o.EditTokens, feed, finish, emit)
}

// Terminal answers a terminal Cmd-K with one command line.
func (s *Service) Terminal(ctx context.Context, in cmdk.TerminalInput) (string, error) {
	p, err := cmdk.NewTerminalPrompt(in)
	if err != nil {
		return "", err
	}
	reply, err := s.whole(ctx, s.EditModel, callrecord.KindCmdK, "cmdk-terminal", in.RequestID, p, 256)
	if err != nil {
		return "", err
	}
	return nonEmpty(cmdk.Command(reply))
}

// CommitMessage writes the commit message of a staged diff in the style
// of the repository's recent messages.
func (s *Service) CommitMessage(ctx context.Context, in gitmsg.CommitInput) (string, error) {
	gp, err := gitmsg.NewCommitPrompt(in, s.o.GitBudget)
	if err != nil {
		return "", err
	}
	reply, err := s.whole(ctx, s.CommitModel, callrecord.KindCommit, "commit", in.RequestID, cmdk.Prompt(gp), 1024)
	if err != nil {
		return "", err
	}
	return nonEmpty(gitmsg.CommitMessage(reply))
}

// BranchName names a branch for a diff and what the user said about it.
func (s *Service) BranchName(ctx context.Context, in gitmsg.BranchInput) (string, error) {
	gp, err := gitmsg.NewBranchPrompt(in, s.o.GitBudget)
	if err != nil {
		return "", err
	}
	reply, err := s.whole(ctx, s.CommitModel, callrecord.KindCommit, "branch", in.RequestID, cmdk.Prompt(gp), 64)
	if err != nil {
		return "", err
	}
	return nonEmpty(gitmsg.BranchName(reply))
}

func nonEmpty(s string) (string, error) {
	if s == "" {
		return "", ErrEmptyAnswer
	}
	return s, nil
}

// whole makes the call and returns the reply's whole text.
func (s *Service) whole(ctx context.Context, model func(context.Context) (string, error), kind callrecord.Kind,
	name, requestID string, p cmdk.Prompt, maxTokens int) (string, error) {
	var b strings.Builder
	err := s.call(ctx, model, kind, name, requestID, p, maxTokens,
		func(d string) (string, bool) { return d, false }, func() string { return "" },
		func(t string) error { b.WriteString(t); return nil })
	return b.String(), err
}

// call makes one routed model call of kind for the prompt and streams the
// decoded text to emit. It stops reading once feed says the answer is
// complete, and the deferred cancel closes the connection.
func (s *Service) call(ctx context.Context, model func(context.Context) (string, error), kind callrecord.Kind,
	name, requestID string, p cmdk.Prompt, maxTokens int,
	feed func(string) (string, bool), finish func() string, emit func(string) error) error {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return ErrNoCaller
	}
	id, err := model(ctx)
	if err != nil {
		return err
	}
	if id == "" {
		return ErrOff
	}
	ep, cfg, err := s.o.Endpoints.Endpoint(ctx, id)
	if err != nil {
		return fmt.Errorf("resolve %s model %s: %w", name, id, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	call := ports.ModelCall{CallID: name + ":" + requestID, RunID: requestID, Kind: kind, Endpoint: ep,
		Request: llm.Request{Model: cfg.ModelID, PromptName: name, Instructions: p.System, MaxOutputTokens: maxTokens,
			Messages: []llm.Message{{ID: name, Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: p.User}}}}}}
	st, err := s.o.Provider.Stream(ctx, call)
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, requestID, err)
	}
	defer func() { _ = st.Close() }()
	var done bool
	finished := false
	for !done && st.Next() {
		ev := st.Event()
		switch ev.Kind {
		case llm.EventTextDelta:
			var out string
			out, done = feed(ev.Text)
			if out != "" {
				if err := emit(out); err != nil {
					return err
				}
			}
		case llm.EventDone:
			finished = true
		default:
		}
	}
	if !done {
		if err := st.Err(); err != nil {
			return fmt.Errorf("%s %s: %w", name, requestID, err)
		}
		if !finished {
			return fmt.Errorf("%s %s: the stream ended without done", name, requestID)
		}
	}
	cancel()
	s.o.Log.Debug("answered", zap.String("op", name), zap.String("request_id", requestID), zap.String("model", cfg.ModelID))
	if rest := finish(); rest != "" {
		return emit(rest)
	}
	return nil
}
