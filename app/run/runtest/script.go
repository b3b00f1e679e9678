package runtest

import (
	"context"
	"errors"
	"sync"

	"keygate/domain/llm"
	"keygate/ports"
)

var _ ports.ModelProvider = (*Script)(nil)

// Script is an in-process ports.ModelProvider that replays scripted event
// sequences, one per call, for streams no real provider client would
// produce (grammar violations). Each call takes the next sequence; Err, if
// set on a sequence, ends the stream after its events.
type Script struct {
	mu    sync.Mutex
	steps []Scripted
}

// Scripted is the answer to one call.
type Scripted struct {
	Events []llm.Event
	Err    error
}

// Enqueue adds answers for the next calls.
func (s *Script) Enqueue(answers ...Scripted) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, answers...)
}

// Stream returns the next scripted stream.
func (s *Script) Stream(ctx context.Context, _ ports.ModelCall) (ports.ModelStream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 {
		return nil, &llm.ProviderError{Class: llm.ErrorBadRequest, Status: 400, Message: "no scripted answer"}
	}
	next := s.steps[0]
	s.steps = s.steps[1:]
	return &scriptStream{ctxErr: ctx.Err, s: next, i: -1}, nil
}

// scriptStream ends with the call's context: ctxErr is its Err.
type scriptStream struct {
	ctxErr func() error
	s      Scripted
	i      int
	err    error
}

func (st *scriptStream) Next() bool {
	if st.err = st.ctxErr(); st.err != nil {
		return false
	}
	st.i++
	if st.i < len(st.s.Events) {
		return true
	}
	st.err = st.s.Err
	return false
}

func (st *scriptStream) Event() llm.Event { return st.s.Events[st.i] }
func (st *scriptStream) Err() error       { return st.err }
func (st *scriptStream) Close() error     { return nil }

// TextEvents is a valid cycle answering text.
func TextEvents(text string) []llm.Event {
	u := llm.Usage{Input: 10, Output: 1, Known: llm.UsageInput | llm.UsageOutput}
	return []llm.Event{
		{Kind: llm.EventStart}, {Kind: llm.EventTextStart}, {Kind: llm.EventTextDelta, Text: text},
		{Kind: llm.EventTextEnd}, {Kind: llm.EventUsage, Usage: &u}, {Kind: llm.EventDone, Finish: llm.FinishStop},
	}
}

// ErrScriptedDisconnect is a transport failure for scripted streams.
var ErrScriptedDisconnect = &llm.ProviderError{Class: llm.ErrorTransient, Message: "scripted disconnect",
	Err: errors.New("connection reset")}
