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
)

// mailbox is an in-process relay that keeps what it was given, so a spec
// can look at the bytes the database would hold.
type mailbox struct {
	mu      sync.Mutex
	stored  [][]byte
	deliver func([]byte)
}

func (m *mailbox) Forward(_ context.Context, _, _ string, payload []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stored = append(m.stored, payload)
	if m.deliver != nil {
		m.deliver(payload)
	}
	return nil
}

func (m *mailbox) Claim(_ context.Context, _ string, deliver func([]byte)) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deliver = deliver
	for _, p := range m.stored {
		deliver(p)
	}
	return func() {}, nil
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
		_, err = relay.Claim(context.Background(), "k", func(p []byte) { got = append(got, p) })
		Expect(err).NotTo(HaveOccurred())
		Expect(relay.Forward(context.Background(), "alice", "k", payload)).To(Succeed())
		Expect(db.stored).To(HaveLen(1))
		Expect(string(db.stored[0])).NotTo(ContainSubstring("cursor-token"))
		Expect(string(db.stored[0])).NotTo(ContainSubstring("prompt"))
		Expect(got).To(Equal([][]byte{payload}))
	})

	It("drops a payload sealed under another key instead of delivering garbage", func() {
		a, _ := secret.NewRing(key(1))
		b, _ := secret.NewRing(key(2))
		db := &mailbox{}
		Expect(company.SealRelay(db, a, runtest.NewClock(), zap.NewNop()).Forward(context.Background(), "alice", "k", payload)).To(Succeed())
		var got [][]byte
		_, err := company.SealRelay(db, b, runtest.NewClock(), zap.NewNop()).Claim(context.Background(), "k", func(p []byte) { got = append(got, p) })
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
		_, err := receiver.Claim(context.Background(), "k", func([]byte) {})
		Expect(err).NotTo(HaveOccurred())

		By("a replica with another key forwarding an append")
		Expect(company.SealRelay(db, a, clock, zap.NewNop()).Forward(context.Background(), "alice", "k", payload)).To(Succeed())
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
