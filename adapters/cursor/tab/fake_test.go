package tab_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"keygate/domain/tab"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// fakePredictor streams scripted events and records what it was asked.
type fakePredictor struct {
	mu     sync.Mutex
	model  string
	script []tab.Event
	// hold makes Predict wait for its context after the script.
	hold bool
	err  error

	inputs    []tab.Input
	fates     []fate
	started   chan struct{}
	cancelled chan struct{}
}

type fate struct {
	RequestID string
	Fate      tab.Fate
}

func newFakePredictor(model string, script ...tab.Event) *fakePredictor {
	return &fakePredictor{model: model, script: script, started: make(chan struct{}, 16), cancelled: make(chan struct{})}
}

func (p *fakePredictor) SetModel(m string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.model = m
}

func (p *fakePredictor) Model(context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.model, nil
}

func (p *fakePredictor) Predict(ctx context.Context, in tab.Input, emit func(tab.Event) error) error {
	p.mu.Lock()
	p.inputs = append(p.inputs, in)
	script, hold, err := p.script, p.hold, p.err
	p.mu.Unlock()
	p.started <- struct{}{}
	for _, ev := range script {
		if e := emit(ev); e != nil {
			return e
		}
	}
	if hold {
		select {
		case <-ctx.Done():
			close(p.cancelled)
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return errNeverCancelled
		}
	}
	return err
}

func (p *fakePredictor) RecordFate(_ context.Context, requestID string, f tab.Fate) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fates = append(p.fates, fate{requestID, f})
	return nil
}

func (p *fakePredictor) Inputs() []tab.Input {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]tab.Input(nil), p.inputs...)
}

func (p *fakePredictor) Fates() []fate {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]fate(nil), p.fates...)
}

// edit is the events of one edit.
func edit(start, end int, pieces ...string) []tab.Event {
	evs := []tab.Event{{Kind: tab.EventBeginEdit, Range: tab.Range{StartLine: start, EndLine: end}}}
	for _, p := range pieces {
		evs = append(evs, tab.Event{Kind: tab.EventText, Text: p})
	}
	return append(evs, tab.Event{Kind: tab.EventDoneEdit})
}

// fakeCursorTab is Cursor's own Tab service: it answers every StreamCpp
// with one text and CppConfig with its own URL, and records the paths.
type fakeCursorTab struct {
	aiserverv1connect.UnimplementedAiServiceHandler
	mu    sync.Mutex
	paths []string
}

func (f *fakeCursorTab) routes() http.Handler {
	mux := http.NewServeMux()
	path, h := aiserverv1connect.NewAiServiceHandler(f)
	mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	return mux
}

func (f *fakeCursorTab) Paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func (f *fakeCursorTab) StreamCpp(_ context.Context, _ *connect.Request[aiserverv1.StreamCppRequest], s *connect.ServerStream[aiserverv1.StreamCppResponse]) error {
	if err := s.Send(&aiserverv1.StreamCppResponse{Text: "from cursor"}); err != nil {
		return err
	}
	return s.Send(&aiserverv1.StreamCppResponse{DoneStream: proto.Bool(true)})
}

func (f *fakeCursorTab) CppConfig(context.Context, *connect.Request[aiserverv1.CppConfigRequest]) (*connect.Response[aiserverv1.CppConfigResponse], error) {
	return connect.NewResponse(&aiserverv1.CppConfigResponse{IsOn: proto.Bool(true), CppUrl: "https://us-only.cursor.sh"}), nil
}

var (
	errModel          = errors.New("model refused the request")
	errNeverCancelled = errors.New("the prediction's context was never cancelled")
)
