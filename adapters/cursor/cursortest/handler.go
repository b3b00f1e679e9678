package cursortest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Script is one turn's behaviour in a ScriptedRunHandler.
type Script func(ctx context.Context, turn *transport.Turn) error

// ScriptedRunHandler is a RunHandler whose turns run a Script. It records
// every turn it served and how each ended.
type ScriptedRunHandler struct {
	script Script

	mu    sync.Mutex
	turns []*transport.Turn
	ends  []error
}

var _ transport.RunHandler = (*ScriptedRunHandler)(nil)

// NewScriptedRunHandler serves every turn with script.
func NewScriptedRunHandler(script Script) *ScriptedRunHandler {
	return &ScriptedRunHandler{script: script}
}

// ServeRun implements transport.RunHandler.
func (h *ScriptedRunHandler) ServeRun(ctx context.Context, turn *transport.Turn) error {
	h.mu.Lock()
	h.turns = append(h.turns, turn)
	h.mu.Unlock()
	err := h.script(ctx, turn)
	h.mu.Lock()
	h.ends = append(h.ends, err)
	h.mu.Unlock()
	return err
}

// Turns returns the turns started so far.
func (h *ScriptedRunHandler) Turns() []*transport.Turn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*transport.Turn(nil), h.turns...)
}

// Ends returns how each returned turn ended, in return order.
func (h *ScriptedRunHandler) Ends() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.ends...)
}

// Ended counts the turns that have returned.
func (h *ScriptedRunHandler) Ended() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ends)
}

// Committing runs script after telling the transport that the turn is
// stored (transport.Turn.Committed), as a handler that stores its turn
// before anything else does: a replica that takes the request id after
// this one died then does not run the turn again from its opening append.
func Committing(script Script) Script {
	return func(ctx context.Context, turn *transport.Turn) error {
		turn.Committed(ctx)
		return script(ctx, turn)
	}
}

// Reply sends the given texts as text deltas and ends the turn.
func Reply(texts ...string) Script {
	return func(_ context.Context, turn *transport.Turn) error {
		for _, t := range texts {
			if err := turn.Output.Send(TextDelta(t)); err != nil {
				return err
			}
		}
		return nil
	}
}

// Echo answers each turn with "echo: " and the text of the user message
// that opened it (a follow-up action's text for a follow-up turn).
func Echo() Script {
	return func(_ context.Context, turn *transport.Turn) error {
		action := turn.Request.GetAction()
		if turn.FollowUp != nil {
			action = turn.FollowUp
		}
		return turn.Output.Send(TextDelta("echo: " + action.GetUserMessageAction().GetUserMessage().GetText()))
	}
}

// Recorder collects the client messages a turn received, in order.
type Recorder struct {
	mu   sync.Mutex
	msgs []*agentv1.AgentClientMessage
}

// Messages returns what was recorded so far.
func (r *Recorder) Messages() []*agentv1.AgentClientMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*agentv1.AgentClientMessage(nil), r.msgs...)
}

// Until records inbox messages until stop returns true for one (that one
// included) and then ends the turn; it ends with ctx's cause when the turn
// is cancelled first.
func (r *Recorder) Until(stop func(*agentv1.AgentClientMessage) bool) Script {
	return func(ctx context.Context, turn *transport.Turn) error {
		for {
			m, err := turn.Inbox.Next(ctx)
			if err != nil {
				return context.Cause(ctx)
			}
			r.mu.Lock()
			r.msgs = append(r.msgs, m)
			r.mu.Unlock()
			if stop(m) {
				return nil
			}
		}
	}
}

// IsCancel matches a stand-alone cancel action.
func IsCancel(m *agentv1.AgentClientMessage) bool {
	return m.GetConversationAction().GetCancelAction() != nil
}

// SetBlob stores data in the client's KV store the way the server does:
// KV SET with a fresh id, then it waits in the inbox for the matching ACK
// (other messages before it are returned in skipped).
func SetBlob(ctx context.Context, turn *transport.Turn, data []byte) (id []byte, skipped []*agentv1.AgentClientMessage, err error) {
	kvID, err := turn.Output.NextKvID()
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	err = turn.Output.Send(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_KvServerMessage{
		KvServerMessage: &agentv1.KvServerMessage{Id: kvID, Message: &agentv1.KvServerMessage_SetBlobArgs{
			SetBlobArgs: &agentv1.SetBlobArgs{BlobId: sum[:], BlobData: data},
		}},
	}})
	if err != nil {
		return nil, nil, err
	}
	for {
		m, err := turn.Inbox.Next(ctx)
		if err != nil {
			return nil, skipped, err
		}
		if kv := m.GetKvClientMessage(); kv.GetId() == kvID && kv.GetSetBlobResult() != nil {
			if e := kv.GetSetBlobResult().GetError(); e != nil {
				return nil, skipped, fmt.Errorf("set blob %d: %s", kvID, e.GetMessage())
			}
			return sum[:], skipped, nil
		}
		skipped = append(skipped, m)
	}
}

// StoreAndReadBack stores data in the client's KV store, reads it back by
// its id and sends it as a text delta: a KV round trip in one turn.
func StoreAndReadBack(data []byte) Script {
	return func(ctx context.Context, turn *transport.Turn) error {
		id, _, err := SetBlob(ctx, turn, data)
		if err != nil {
			return err
		}
		got, err := GetBlob(ctx, turn, id)
		if err != nil {
			return err
		}
		return turn.Output.Send(TextDelta(string(got)))
	}
}

// GetBlob asks the client's KV store for a blob and waits for the answer.
func GetBlob(ctx context.Context, turn *transport.Turn, id []byte) ([]byte, error) {
	kvID, err := turn.Output.NextKvID()
	if err != nil {
		return nil, err
	}
	err = turn.Output.Send(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_KvServerMessage{
		KvServerMessage: &agentv1.KvServerMessage{Id: kvID, Message: &agentv1.KvServerMessage_GetBlobArgs{
			GetBlobArgs: &agentv1.GetBlobArgs{BlobId: id},
		}},
	}})
	if err != nil {
		return nil, err
	}
	for {
		m, err := turn.Inbox.Next(ctx)
		if err != nil {
			return nil, err
		}
		if kv := m.GetKvClientMessage(); kv.GetId() == kvID && kv.GetGetBlobResult() != nil {
			res := kv.GetGetBlobResult()
			if res.Error != nil {
				return nil, fmt.Errorf("get blob %d: %s", kvID, res.GetError().GetMessage())
			}
			return res.GetBlobData(), nil
		}
	}
}

// ReadBack is a turn with one tool round: it asks the client to read path
// (an exec with ReadArgs) and sends what it read as a text delta.
func ReadBack(path string) Script {
	return func(ctx context.Context, turn *transport.Turn) error {
		id, err := turn.Output.NextExecID()
		if err != nil {
			return err
		}
		err = turn.Output.Send(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_ExecServerMessage{
			ExecServerMessage: &agentv1.ExecServerMessage{Id: id, ExecId: "call-read", Message: &agentv1.ExecServerMessage_ReadArgs{
				ReadArgs: &agentv1.ReadArgs{Path: path},
			}},
		}})
		if err != nil {
			return err
		}
		for {
			m, err := turn.Inbox.Next(ctx)
			if err != nil {
				return err
			}
			if r := m.GetExecClientMessage(); r.GetId() == id && r.GetReadResult() != nil {
				return turn.Output.Send(TextDelta(r.GetReadResult().GetSuccess().GetContent()))
			}
		}
	}
}
