package cmdk_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"

	"keygate/domain/cmdk"
	"keygate/domain/gitmsg"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// fakeEditor streams scripted text and records what it was asked.
type fakeEditor struct {
	mu                sync.Mutex
	editModel, commit string
	script            []string
	answer            string
	hold              bool
	err               error

	edits     []cmdk.Input
	terminals []cmdk.TerminalInput
	commits   []gitmsg.CommitInput
	branches  []gitmsg.BranchInput
	started   chan struct{}
	cancelled chan struct{}
}

func newFakeEditor() *fakeEditor {
	return &fakeEditor{editModel: "edit-model", commit: "commit-model", started: make(chan struct{}, 16), cancelled: make(chan struct{})}
}

func (e *fakeEditor) SetModels(edit, commit string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.editModel, e.commit = edit, commit
}

func (e *fakeEditor) EditModel(context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.editModel, nil
}

func (e *fakeEditor) CommitModel(context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.commit, nil
}

func (e *fakeEditor) Edit(ctx context.Context, in cmdk.Input, emit func(string) error) error {
	e.mu.Lock()
	e.edits = append(e.edits, in)
	script, hold, err := e.script, e.hold, e.err
	e.mu.Unlock()
	e.started <- struct{}{}
	for _, s := range script {
		if err := emit(s); err != nil {
			return err
		}
	}
	if hold {
		select {
		case <-ctx.Done():
			close(e.cancelled)
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return errors.New("never cancelled")
		}
	}
	return err
}

func (e *fakeEditor) Terminal(_ context.Context, in cmdk.TerminalInput) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.terminals = append(e.terminals, in)
	return e.answer, e.err
}

func (e *fakeEditor) CommitMessage(_ context.Context, in gitmsg.CommitInput) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.commits = append(e.commits, in)
	return e.answer, e.err
}

func (e *fakeEditor) BranchName(_ context.Context, in gitmsg.BranchInput) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.branches = append(e.branches, in)
	return e.answer, e.err
}

func (e *fakeEditor) Edits() []cmdk.Input {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]cmdk.Input(nil), e.edits...)
}

func (e *fakeEditor) Asked() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.edits) + len(e.terminals) + len(e.commits) + len(e.branches)
}

// fakeCursor is Cursor's own service: it answers StreamCmdK and the Git
// routes with its own text and records the paths.
type fakeCursor struct {
	aiserverv1connect.UnimplementedAiServiceHandler
	aiserverv1connect.UnimplementedCmdKServiceHandler
	mu    sync.Mutex
	paths []string
}

func (f *fakeCursor) routes() http.Handler {
	mux := http.NewServeMux()
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.paths = append(f.paths, r.URL.Path)
			f.mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	p, h := aiserverv1connect.NewAiServiceHandler(f)
	mux.Handle(p, record(h))
	p, h = aiserverv1connect.NewCmdKServiceHandler(f)
	mux.Handle(p, record(h))
	return mux
}

func (f *fakeCursor) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func (f *fakeCursor) StreamCmdK(_ context.Context, _ *connect.Request[aiserverv1.StreamCmdKRequest], s *connect.ServerStream[aiserverv1.StreamCmdKResponseContextWrapped]) error {
	return s.Send(&aiserverv1.StreamCmdKResponseContextWrapped{Response: &aiserverv1.StreamCmdKResponseContextWrapped_RealResponse{
		RealResponse: &aiserverv1.StreamCmdKResponse{Response: &aiserverv1.StreamCmdKResponse_Chat_{Chat: &aiserverv1.StreamCmdKResponse_Chat{Text: "from cursor"}}}}})
}

func (f *fakeCursor) WriteGitCommitMessage(context.Context, *connect.Request[aiserverv1.WriteGitCommitMessageRequest]) (*connect.Response[aiserverv1.WriteGitCommitMessageResponse], error) {
	return connect.NewResponse(&aiserverv1.WriteGitCommitMessageResponse{CommitMessage: "from cursor"}), nil
}
