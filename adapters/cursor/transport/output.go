package transport

import (
	"fmt"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// turnOutput is one turn's Output: it writes into the transport's log until
// the turn is over.
type turnOutput struct {
	t    *Transport
	over atomic.Bool
}

var _ Output = (*turnOutput)(nil)

func (o *turnOutput) Send(msg *agentv1.AgentServerMessage) error {
	if o.over.Load() {
		return ErrTurnOver
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return fmt.Errorf("marshal server message: %w", err)
	}
	return o.t.out.appendPayload(b, msg.GetKvServerMessage() != nil)
}

func (o *turnOutput) NextExecID() (uint32, error)        { return o.t.ids.exec.next() }
func (o *turnOutput) NextInteractionID() (uint32, error) { return o.t.ids.interaction.next() }
func (o *turnOutput) NextKvID() (uint32, error)          { return o.t.ids.kv.next() }
