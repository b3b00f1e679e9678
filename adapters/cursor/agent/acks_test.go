package agent_test

import (
	"context"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// heldTurn is a turn whose client answers KV SETs only when told to.
type heldTurn struct {
	inbox chan *agentv1.AgentClientMessage
	mu    sync.Mutex
	out   []*agentv1.AgentServerMessage
	ids   uint32
	acked map[uint32]bool
}

func (t *heldTurn) Next(ctx context.Context) (*agentv1.AgentClientMessage, error) {
	select {
	case m := <-t.inbox:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *heldTurn) Send(m *agentv1.AgentServerMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, m)
	return nil
}

func (t *heldTurn) next() (uint32, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids++
	return t.ids, nil
}

func (t *heldTurn) NextExecID() (uint32, error)        { return t.next() }
func (t *heldTurn) NextInteractionID() (uint32, error) { return t.next() }
func (t *heldTurn) NextKvID() (uint32, error)          { return t.next() }

func (t *heldTurn) sent() []*agentv1.AgentServerMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.out)
}

// ackSets answers every SET sent so far that it did not answer yet.
func (t *heldTurn) ackSets() {
	for _, m := range t.sent() {
		if kv := m.GetKvServerMessage(); kv.GetSetBlobArgs() != nil && !t.acked[kv.GetId()] {
			t.acked[kv.GetId()] = true
			t.inbox <- &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: &agentv1.KvClientMessage{
				Id: kv.GetId(), Message: &agentv1.KvClientMessage_SetBlobResult{SetBlobResult: &agentv1.SetBlobResult{}}}}}
		}
	}
}

var _ = Describe("Handler facing a client slow to acknowledge blobs", func() {
	It("calls the model at once and holds the text until the user turn's checkpoint is published", func() {
		h := newHarness(llm.ProviderOpenAIChat)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"Early answer."}})
		handler, err := agent.New(agent.Options{Engine: h.engine, Conversations: h.stores.Conversations,
			Models: models{url: h.provider.URL, kind: llm.ProviderOpenAIChat}, AckTimeout: 10 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		t := &heldTurn{inbox: make(chan *agentv1.AgentClientMessage, 64), acked: map[uint32]bool{}}
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		done := make(chan error, 1)
		go func() {
			done <- handler.ServeRun(ctx, &transport.Turn{RequestID: "req-slow",
				Request: cursortest.RunRequest("conv-slow", "kg-model", "Hi").GetRunRequest(), Inbox: t, Output: t})
		}()

		Eventually(h.provider.Requests).Should(HaveLen(1), "the model is called before any SET is acknowledged")
		Expect(cursortest.Kinds(t.sent())).To(ContainElement("kv_set"))
		Consistently(func() []string { return cursortest.Kinds(t.sent()) }, 100*time.Millisecond).ShouldNot(
			ContainElements(Or(Equal("text"), Equal("checkpoint:settled"))))

		t.ackSets()
		Eventually(func() []string { return cursortest.Kinds(t.sent()) }).Should(ContainElement("text"))
		// The final checkpoint's blobs: the turn ends once they are ACKed.
		Eventually(func() int { return countOf(cursortest.Kinds(t.sent()), "kv_set") }).Should(BeNumerically(">", len(t.acked)))
		t.ackSets()
		Eventually(done).Should(Receive(BeNil()))
		ks := cursortest.Kinds(t.sent())
		Expect(slices.Index(ks, "checkpoint:settled")).To(BeNumerically("<", slices.Index(ks, "text")))
		Expect(ks[len(ks)-4:]).To(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
	})
})
