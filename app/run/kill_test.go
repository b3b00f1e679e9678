package run_test

import (
	"context"
	"errors"
	"sync/atomic"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// errDead is what every store and provider call of a killed process gets.
var errDead = errors.New("process is dead")

// mortal wraps the stores and provider of one engine generation. Killing
// it makes every later call fail, the way a crashed process writes
// nothing more, so the next generation sees exactly what was committed.
type mortal struct {
	dead atomic.Bool
	// claims, claimTurns and begins count the run store's writes of a
	// turn's start.
	claims, claimTurns, begins atomic.Int32
	convs                      ports.ConversationStore
	runs                       ports.RunStore
	rounds                     ports.ToolRoundStore
	provider                   ports.ModelProvider
}

func (m *mortal) check(ctx context.Context) error {
	if m.dead.Load() {
		return errDead
	}
	return ctx.Err()
}

type mortalConvs struct{ *mortal }

func (m mortalConvs) Open(ctx context.Context, id string) (conversation.Checkpoint, error) {
	if err := m.check(ctx); err != nil {
		return conversation.Checkpoint{}, err
	}
	return m.convs.Open(ctx, id)
}

func (m mortalConvs) Head(ctx context.Context, id string) (conversation.Checkpoint, error) {
	if err := m.check(ctx); err != nil {
		return conversation.Checkpoint{}, err
	}
	return m.convs.Head(ctx, id)
}

func (m mortalConvs) Load(ctx context.Context, id string) (conversation.Checkpoint, []conversation.Message, error) {
	if err := m.check(ctx); err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	return m.convs.Load(ctx, id)
}

func (m mortalConvs) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	if err := m.check(ctx); err != nil {
		return conversation.Decision{}, err
	}
	return m.convs.Apply(ctx, w)
}

type mortalRuns struct{ *mortal }

func (m mortalRuns) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	if err := m.check(ctx); err != nil {
		return "", err
	}
	m.claims.Add(1)
	return m.runs.Claim(ctx, c)
}

func (m mortalRuns) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	if err := m.check(ctx); err != nil {
		return ports.ClaimedTurn{}, err
	}
	m.claimTurns.Add(1)
	return m.runs.ClaimTurn(ctx, c, initial)
}

func (m mortalRuns) Run(ctx context.Context, id string) (ports.Run, error) {
	if err := m.check(ctx); err != nil {
		return ports.Run{}, err
	}
	return m.runs.Run(ctx, id)
}

func (m mortalRuns) LatestForRequest(ctx context.Context, id string) (ports.Run, error) {
	if err := m.check(ctx); err != nil {
		return ports.Run{}, err
	}
	return m.runs.LatestForRequest(ctx, id)
}

func (m mortalRuns) BeginProviderCall(ctx context.Context, id string) (int, error) {
	if err := m.check(ctx); err != nil {
		return 0, err
	}
	m.begins.Add(1)
	return m.runs.BeginProviderCall(ctx, id)
}

func (m mortalRuns) Finish(ctx context.Context, id string, end ports.RunEnd) error {
	if err := m.check(ctx); err != nil {
		return err
	}
	return m.runs.Finish(ctx, id, end)
}

type mortalRounds struct{ *mortal }

func (m mortalRounds) Start(ctx context.Context, runID, base string, r toolround.Round) error {
	if err := m.check(ctx); err != nil {
		return err
	}
	return m.rounds.Start(ctx, runID, base, r)
}

func (m mortalRounds) Round(ctx context.Context, id string) (toolround.Round, error) {
	if err := m.check(ctx); err != nil {
		return toolround.Round{}, err
	}
	return m.rounds.Round(ctx, id)
}

func (m mortalRounds) Commit(ctx context.Context, runID, roundID string, res llm.ToolResult) (ports.ToolRoundCommit, error) {
	if err := m.check(ctx); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	return m.rounds.Commit(ctx, runID, roundID, res)
}

func (m mortalRounds) Interrupt(ctx context.Context, runID, roundID string, d ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	if err := m.check(ctx); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	return m.rounds.Interrupt(ctx, runID, roundID, d...)
}

type mortalProvider struct{ *mortal }

func (m mortalProvider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	return m.provider.Stream(ctx, call)
}
