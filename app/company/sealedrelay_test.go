package company_test

import (
	"bytes"
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/secret"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/ports"
)

// mailbox is an in-process relay that keeps what it was given, so a spec
// can look at the bytes the database would hold.
type mailbox struct {
	mu        sync.Mutex
	stored    [][]byte
	published [][]byte
	deliver   func([]byte)
}

func (m *mailbox) Forward(_ context.Context, _, _ string, payload []byte, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stored = append(m.stored, payload)
	if m.deliver != nil {
		m.deliver(payload)
	}
	return nil
}

func (m *mailbox) Acquire(_ context.Context, _ string, deliver func([]byte)) (ports.RunLease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deliver = deliver
	for _, p := range m.stored {
		deliver(p)
	}
	return &outbox{m: m}, nil
}

func (m *mailbox) Follow(context.Context, string, int64) (ports.OutputPage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return ports.OutputPage{Frames: m.published, Last: int64(len(m.published)), Held: true}, nil
}

func (m *mailbox) Changes(string) (<-chan struct{}, func()) { return make(chan struct{}), func() {} }

// outbox is the mailbox's lease: it keeps what is published.
type outbox struct{ m *mailbox }

func (o *outbox) Token() int64                 { return 1 }
func (o *outbox) Watched() bool                { return false }
func (o *outbox) Lost() <-chan struct{}        { return nil }
func (o *outbox) Opened(context.Context) error { return nil }
func (o *outbox) Settle(context.Context) error { return nil }
func (o *outbox) TookOver() bool               { return false }
func (o *outbox) Keep(_ context.Context, _ string, payload []byte, _ bool) error {
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	o.m.stored = append(o.m.stored, payload)
	return nil
}
func (o *outbox) Release(bool) {}
func (o *outbox) Publish(_ context.Context, frames [][]byte, _ []byte) error {
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	o.m.published = append(o.m.published, frames...)
	return nil
}

var _ = Describe("SealRelay", func() {
	key := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	payload := []byte(`{"headers":{"Authorization":["Bearer cursor-token"]}} prompt text`)

	It("stores only sealed bytes and delivers the payload opened", func() {
		box, err := secret.NewRing(key(1))
		Expect(err).NotTo(HaveOccurred())
		db := &mailbox{}
		relay := company.SealRelay(db, box, runtest.NewClock(), zap.NewNop())
		var got [][]byte
		l, err := relay.Acquire(context.Background(), "k", func(p []byte) { got = append(got, p) })
		Expect(err).NotTo(HaveOccurred())
		Expect(relay.Forward(context.Background(), "alice", "k", payload, false)).To(Succeed())
		Expect(db.stored).To(HaveLen(1))
		Expect(string(db.stored[0])).NotTo(ContainSubstring("cursor-token"))
		Expect(string(db.stored[0])).NotTo(ContainSubstring("prompt"))
		Expect(got).To(Equal([][]byte{payload}))

		By("sealing an opening append that reached the lease's replica directly and is kept for a handover")
		Expect(l.Keep(context.Background(), "alice", payload, true)).To(Succeed())
		Expect(db.stored).To(HaveLen(2))
		Expect(string(db.stored[1])).NotTo(ContainSubstring("cursor-token"))
		Expect(string(db.stored[1])).NotTo(ContainSubstring("prompt"))

		By("sealing the output a lease publishes, and opening it for a follower")
		Expect(l.Publish(context.Background(), [][]byte{[]byte("assistant text")}, nil)).To(Succeed())
		Expect(string(db.published[0])).NotTo(ContainSubstring("assistant text"))
		page, err := relay.Follow(context.Background(), "k", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Frames).To(Equal([][]byte{[]byte("assistant text")}))
	})

	It("drops a payload sealed under another key instead of delivering garbage", func() {
		a, _ := secret.NewRing(key(1))
		b, _ := secret.NewRing(key(2))
		db := &mailbox{}
		Expect(company.SealRelay(db, a, runtest.NewClock(), zap.NewNop()).Forward(context.Background(), "alice", "k", payload, false)).To(Succeed())
		var got [][]byte
		_, err := company.SealRelay(db, b, runtest.NewClock(), zap.NewNop()).Acquire(context.Background(), "k", func(p []byte) { got = append(got, p) })
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(BeEmpty())
	})

	It("reports unready, saying why, while appends sealed under another key arrive, and ready again once none came for a while", func() {
		a, _ := secret.NewRing(key(1))
		b, _ := secret.NewRing(key(2))
		db := &mailbox{}
		clock := runtest.NewClock()
		receiver := company.SealRelay(db, b, clock, zap.NewNop())
		Expect(receiver.Ready(context.Background())).To(Succeed(), "nothing failed yet")
		_, err := receiver.Acquire(context.Background(), "k", func([]byte) {})
		Expect(err).NotTo(HaveOccurred())

		By("a replica with another key forwarding an append")
		Expect(company.SealRelay(db, a, clock, zap.NewNop()).Forward(context.Background(), "alice", "k", payload, false)).To(Succeed())
		Expect(receiver.Ready(context.Background())).To(MatchError(And(
			ContainSubstring("1 relayed appends from other replicas did not open with this replica's secret key"),
			ContainSubstring("the replicas do not share one secret key"))))

		By("staying unready for the window after the last such append")
		clock.Advance(company.UnopenedWindow - time.Second)
		Expect(receiver.Ready(context.Background())).To(HaveOccurred())

		clock.Advance(time.Second)
		Expect(receiver.Ready(context.Background())).To(Succeed(), "no failure for a whole window")
	})
})
