package agent

import (
	"context"
	"fmt"

	"keygate/adapters/cursor/checkpoint"
	"keygate/domain/conversation"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// checkpoints is what the turn's checkpoints are built from: the client's
// base state, the run's latest committed checkpoint and its message list,
// the turn's steps as the client shows them (ui), the token counts and the
// conversation's todo list. It builds projections (package checkpoint) for
// the publisher to send; the only I/O it does is loading the messages of a
// checkpoint it does not know. Only the turn's goroutine uses it.
type checkpoints struct {
	store ports.ConversationStore

	// base is the client's state the turn builds on.
	base *agentv1.ConversationStateStructure
	// ui is the turn's steps; mode the mode the checkpoint records.
	ui   *checkpoint.Turn
	mode agentv1.AgentMode
	// head is the run's latest committed checkpoint id; msgs is its
	// message list when known (the history the turn read, or the list the
	// engine committed), so a checkpoint is projected without loading the
	// conversation again.
	head  string
	msgs  []conversation.Message
	known bool
	// usedTok is the context the last model call used, maxTok the window.
	usedTok, maxTok int64
	// todos is the conversation's todo list; todosSet says the turn changed
	// it.
	todos    []*agentv1.TodoItem
	todosSet bool
	// predicted is the user turn's checkpoint as projected before the
	// engine committed it, its blobs SET already.
	predicted *predicted
	// subagents are the conversation's subagents as the turn changed them.
	subagents *checkpoint.Subagents
	// noTurn: the turn adds no turn to the client's list.
	noTurn bool
	// open is the dispatched tool round's calls still without a result
	// (see resume.go); nil when no round is open.
	open *checkpoint.Pending
}

// predicted is the user turn's checkpoint projected before the engine
// commits it: the settled state of checkpoint id and its blobs.
type predicted struct {
	id    string
	state *agentv1.ConversationStateStructure
	blobs checkpoint.Blobs
}

// begin starts the checkpoints of run p: on the client's base, at the
// history the run builds on, with the run's steps, mode and window, the
// conversation's subagents and its todo list as the base has it.
func (c *checkpoints) begin(p *prepared) {
	c.base = p.base
	c.at(p.compiled.Run.HistoryOf, p.compiled.Run.History, true)
	c.ui, c.mode, c.maxTok = p.ui, p.compiled.Mode.Wire(), p.window
	c.todos, c.todosSet = checkpoint.Todos(p.base), false
	c.subagents, c.noTurn = p.subagents, p.noTurn
}

// at records the run's latest checkpoint and, when known, its messages.
func (c *checkpoints) at(id string, msgs []conversation.Message, known bool) {
	c.head, c.msgs, c.known = id, msgs, known
}

// setTodos records the todo list a TodoWrite produced.
func (c *checkpoints) setTodos(todos []*agentv1.TodoItem) {
	c.todos, c.todosSet = todos, true
}

// project builds the turn's checkpoint of checkpointID, from its known
// message list or else a load.
func (c *checkpoints) project(ctx context.Context, checkpointID, summary string) (checkpoint.Projection, error) {
	msgs := c.msgs
	if !c.known || checkpointID != c.head {
		var err error
		if _, msgs, err = c.store.Load(ctx, checkpointID); err != nil {
			return checkpoint.Projection{}, fmt.Errorf("load checkpoint %s: %w", checkpointID, err)
		}
	}
	return c.projection(msgs, summary), nil
}

// projection is the turn's checkpoint over the message list msgs.
func (c *checkpoints) projection(msgs []conversation.Message, summary string) checkpoint.Projection {
	p := checkpoint.Projection{Base: c.base, Messages: msgs, Turn: c.ui, Mode: c.mode,
		UsedTokens: c.usedTok, MaxTokens: c.maxTok, Summary: summary, Subagents: c.subagents}
	if c.noTurn {
		p.Turn = nil
	}
	if c.todosSet {
		p.Todos = append([]*agentv1.TodoItem{}, c.todos...)
	}
	return p
}

// predict projects the checkpoint that appending initial to head makes (the
// usual outcome of the user turn's commit), or nil when the turn does not
// build on head's known messages or the engine would refuse the change.
func (c *checkpoints) predict(head conversation.Checkpoint, initial []conversation.Message) *predicted {
	if !c.known || c.head != head.ID() || len(initial) == 0 {
		return nil
	}
	plan, err := conversation.AppendTo(head, initial...).Plan()
	if err != nil {
		return nil // the engine refuses the same change and says why
	}
	all := append(c.msgs[:len(c.msgs):len(c.msgs)], initial...)
	st, blobs := checkpoint.Settled(c.projection(all, ""))
	return &predicted{id: plan.Target().ID(), state: st, blobs: blobs}
}

// settled returns the settled state of checkpointID and its blobs: the
// prediction when it came true, else a projection.
func (c *checkpoints) settled(ctx context.Context, checkpointID string) (*predicted, error) {
	pr := c.predicted
	c.predicted = nil
	if pr != nil && pr.id == checkpointID {
		return pr, nil
	}
	p, err := c.project(ctx, checkpointID, "")
	if err != nil {
		return nil, err
	}
	pr = &predicted{id: checkpointID}
	pr.state, pr.blobs = checkpoint.Settled(p)
	return pr, nil
}
