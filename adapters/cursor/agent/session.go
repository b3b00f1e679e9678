package agent

import (
	"context"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/tools"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// session is one turn: the compiled run, its handle and the wire state.
// Only the turn's goroutine touches it, except the inbox reader.
type session struct {
	h    *Handler
	ctx  context.Context
	turn *transport.Turn
	log  *zap.Logger

	// inbox is fed by a reader goroutine until stop.
	inbox    chan *agentv1.AgentClientMessage
	readErr  chan error
	stopRead context.CancelFunc
	readDone chan struct{}
	// over is closed when the turn is over.
	over chan struct{}

	endpoint ports.Endpoint
	config   ports.ModelConfig
	action   *agentv1.ConversationAction
	convID   string
	compiled compile.Output
	handle   *run.Handle
	base     *agentv1.ConversationStateStructure
	ui       *checkpoint.Turn
	maxTok   int64
	usedTok  int64
	usage    llm.Usage

	// execs maps exec ids to their tool calls.
	execs map[uint32]*tools.Call
	// completing holds calls whose result was handed to the engine and is
	// not committed yet.
	completing map[string]*tools.Call
	// queries maps interaction query ids to their calls.
	queries map[uint32]*tools.Call
	// modelCall is the provider call id of each tool call, for the cards.
	modelCall map[string]string
	// injections queued in this run: event id -> injection.
	injections map[string]injection
	seenInject map[string]bool
	// cur is the run's latest committed checkpoint id; curMsgs is its
	// message list when known (curKnown: the history the turn read, or the
	// list the engine committed), so a checkpoint is projected without
	// loading the conversation again.
	cur      string
	curMsgs  []conversation.Message
	curKnown bool
	// unacked is the user turn's checkpoint while its blobs wait for the
	// client's ACKs; serve holds the run's events back meanwhile.
	unacked *unacked
	// predicted is the user turn's checkpoint as projected before the
	// commit, its blobs SET already.
	predicted *predicted
	// sets are the KV SETs in flight by KV id, inflight the same by blob
	// id; setFailed keeps the blobs whose last SET failed.
	sets      map[uint32]string
	inflight  map[string]bool
	setFailed map[string]error
	// todos is the conversation's todo list; todosSet says this turn
	// changed it.
	todos    []*agentv1.TodoItem
	todosSet bool
	// backlog holds client messages that arrived before the run started.
	backlog []*agentv1.AgentClientMessage
	// webDone delivers the outcome of approved web requests.
	webDone chan webOutcome
	// late is a follow-up that arrived while the run committed its final
	// turn (the engine answered RunClosing); pending are later ones. The
	// turn runs again for each, so none is lost (pitfall P9).
	late    *injection
	pending []injection
	// compacting says the run is a /summarize run.
	compacting bool
}

type injection struct {
	id   string
	user *agentv1.UserMessage
}

func newSession(ctx context.Context, h *Handler, turn *transport.Turn) *session {
	return &session{
		h: h, ctx: ctx, turn: turn, log: h.log.With(zap.String("request_id", turn.RequestID)),
		inbox: make(chan *agentv1.AgentClientMessage, 64), readErr: make(chan error, 1), over: make(chan struct{}),
		execs: map[uint32]*tools.Call{}, queries: map[uint32]*tools.Call{}, completing: map[string]*tools.Call{},
		webDone: make(chan webOutcome, 8), modelCall: map[string]string{},
		injections: map[string]injection{}, seenInject: map[string]bool{},
		sets: map[uint32]string{}, inflight: map[string]bool{}, setFailed: map[string]error{},
	}
}

// listen starts moving the turn's inbox into the session. It starts only
// once the turn is known to be Keygate's, so a foreign turn gets its inbox
// untouched.
func (s *session) listen() {
	ctx, cancel := context.WithCancel(s.ctx)
	s.stopRead, s.readDone = cancel, make(chan struct{})
	go s.read(ctx, s.readDone)
}

// read moves the transport's inbox into s.inbox until ctx ends. A message
// it took is always delivered (or the whole turn is over), so stopping the
// reader never loses one.
func (s *session) read(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	for {
		m, err := s.turn.Inbox.Next(ctx)
		if err != nil {
			select {
			case s.readErr <- err:
			default:
			}
			return
		}
		select {
		case s.inbox <- m:
		case <-s.over:
			return
		}
	}
}

// quiesce stops the reader and returns the messages it read that nobody
// handled yet; the transport keeps everything after them.
func (s *session) quiesce() []*agentv1.AgentClientMessage {
	if s.stopRead == nil {
		return nil
	}
	s.stopRead()
	var left []*agentv1.AgentClientMessage
	for {
		select {
		case m := <-s.inbox:
			left = append(left, m)
		case <-s.readDone:
			for {
				select {
				case m := <-s.inbox:
					left = append(left, m)
				default:
					s.stopRead = nil
					return left
				}
			}
		}
	}
}

// finish ends the session: the reader stops and background work gives up.
func (s *session) finish() {
	if s.stopRead != nil {
		s.stopRead()
	}
	close(s.over)
}

func (s *session) headID() string { return s.cur }

func (s *session) send(m *agentv1.AgentServerMessage) error {
	return s.turn.Output.Send(m)
}

func (s *session) env() tools.Env {
	req := s.turn.Request
	return tools.Env{ConversationID: s.convID, RootConversationID: req.GetConversationGroupId(),
		ModelID: transport.ModelID(req), MCP: s.compiled.MCP, Servers: s.compiled.Servers, Todos: s.todos, Now: s.h.o.Now}
}

type webOutcome struct {
	call    *tools.Call
	content string
	err     error
}

// web runs an approved search or fetch off the turn's goroutine.
func (s *session) web(call *tools.Call, w *tools.Web) {
	go func() {
		var o webOutcome
		o.call = call
		if w.Fetch != "" {
			o.content, o.err = s.h.o.Web.Fetch(s.ctx, w.Fetch)
		} else {
			o.content, o.err = s.h.o.Web.Search(s.ctx, w.Search)
		}
		select {
		case s.webDone <- o:
		case <-s.over:
		}
	}()
}
