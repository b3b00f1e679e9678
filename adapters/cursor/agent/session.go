package agent

import (
	"context"

	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/tools"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/identity"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// session is one turn. It routes: the run's events and the client's
// messages go to the part whose job they are, each part owning its state.
//
//	wire      sends to the client; its first failure is sticky and stops the turn
//	inbox     reads the client's messages
//	blobs     KV SETs, GETs and ACKs, and checkpoint publication
//	view      what the turn's checkpoints are built from
//	tools     the rounds' tool calls
//	followUps user messages that arrive while a run works
//
// A turn runs one run, or more when follow-ups missed the previous one.
// Only the turn's goroutine touches the session; the inbox reader and web
// requests hand their results over through channels. The turn's context
// travels as the first argument of every method that waits or does I/O.
type session struct {
	h    *Handler
	turn *transport.Turn
	// turnLog carries the turn's fields; log adds the run's id.
	turnLog, log *zap.Logger
	// over is closed when the turn is over.
	over chan struct{}

	wire      *wire
	inbox     *inbox
	blobs     *publisher
	view      *checkpoints
	tools     *dispatcher
	followUps *followUps

	endpoint ports.Endpoint
	config   ports.ModelConfig
	// convID is the request's conversation id; prepare refuses an empty one.
	convID string
	// compiled, log and compacting are the current run's (see apply).
	compiled compile.Output
	handle   *run.Handle
	// compacting says the run is a /summarize run.
	compacting bool
	usage      llm.Usage
	// backlog holds client messages that arrived before the run started.
	backlog []*agentv1.AgentClientMessage
}

func newSession(ctx context.Context, h *Handler, turn *transport.Turn) *session {
	s := &session{h: h, turn: turn, over: make(chan struct{}), followUps: newFollowUps(), convID: turn.Request.GetConversationId()}
	s.turnLog = h.log.With(turnFields(ctx, turn)...)
	s.log = s.turnLog
	s.wire = newWire(turn.Output)
	s.inbox = newInbox(turn.Inbox, s.over)
	s.blobs = newPublisher(s.convID, s.turnLog, s.wire, s.inbox, h.mem, h.o.AckTimeout)
	s.blobs.other = s.onClientEarly
	s.view = &checkpoints{store: h.o.Conversations}
	s.tools = newDispatcher(s.over, s.wire, h.o.Search, h.o.Fetch, h.web)
	s.tools.record = func(card *agentv1.ToolCall) {
		s.view.ui.Tool(card)
		s.view.subagents.Task(card, h.o.Now())
	}
	s.tools.deliver = func(ctx context.Context, call *tools.Call, r llm.ToolResult) {
		if todos, ok := call.Todos(); ok {
			s.view.setTodos(todos)
		}
		s.handle.ToolResult(s.result(ctx, call, r))
	}
	return s
}

// turnFields are the log fields of every line about the turn (see the
// package doc for the vocabulary).
func turnFields(ctx context.Context, turn *transport.Turn) []zap.Field {
	fields := []zap.Field{zap.String("request_id", turn.RequestID),
		zap.String("conversation_id", turn.Request.GetConversationId()), zap.String("model", transport.ModelID(turn.Request))}
	if who, ok := identity.FromContext(ctx); ok {
		fields = append(fields, zap.String("user_id", who.UserID))
	}
	return fields
}

// finish ends the session: the reader stops and background work gives up.
func (s *session) finish() {
	s.inbox.close()
	close(s.over)
}

// env is what a tool call needs to know about the run.
func (s *session) env() tools.Env {
	req := s.turn.Request
	return tools.Env{ConversationID: s.convID, RootConversationID: req.GetConversationGroupId(),
		ModelID: transport.ModelID(req), MCP: s.compiled.MCP, Servers: s.compiled.Servers, Todos: s.view.todos, Now: s.h.o.Now,
		Images: s.config.SupportsImages, Rules: s.compiled.Rules, Workspaces: s.compiled.Workspaces,
		SubagentOverrides: req.GetSubagentModelOverrides(), Subagents: s.view.subagents.IDs(),
		TerminalsFolder: s.compiled.TerminalsFolder, NoMCPAuth: s.compiled.NoMCPAuth}
}
