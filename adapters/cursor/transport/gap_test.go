package transport_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
)

var _ = Describe("Appends behind a seqno that never comes", func() {
	const gapWait = 300 * time.Millisecond
	var (
		probe *turnProbe
		reg   *transport.Registry
		turn  *transport.Turn
	)
	// closes is the append of seqno that closes exec stream id: a
	// message the inbox hands over by its id.
	closes := func(seqno int64, id uint32) transport.Append {
		return transport.Append{RequestID: "r1", Seqno: seqno, Message: cursortest.ExecStreamClose(id)}
	}
	// inbox reads the turn's next message (the id of its exec stream
	// close), or fails when none comes within within.
	inbox := func(within time.Duration) (uint32, error) {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		defer cancel()
		m, err := turn.Inbox.Next(ctx)
		return m.GetExecClientControlMessage().GetStreamClose().GetId(), err
	}

	BeforeEach(func() {
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.GapWait = gapWait
		cfg.OrphanGrace = time.Hour // no subscriber in these specs
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		Eventually(probe.turns).Should(Receive(&turn))
	})

	It("are released in order once the gap wait is over, and not before", func() {
		Expect(appendTo(reg, closes(1, 1))).To(Succeed())
		Expect(inbox(time.Second)).To(Equal(uint32(1)))
		// Seqno 2 was lost with a stream the client closed as it was being
		// sent; the client's later answers are 3 and 4.
		Expect(appendTo(reg, closes(4, 4))).To(Succeed())
		Expect(appendTo(reg, closes(3, 3))).To(Succeed())
		start := time.Now()
		_, err := inbox(gapWait / 2)
		Expect(err).To(MatchError(context.DeadlineExceeded), "they wait for seqno 2 first")
		Expect(inbox(5 * gapWait)).To(Equal(uint32(3)))
		Expect(time.Since(start)).To(BeNumerically(">=", gapWait/2))
		Expect(inbox(time.Second)).To(Equal(uint32(4)))

		By("the numbering goes on after them")
		Expect(appendTo(reg, closes(5, 5))).To(Succeed())
		Expect(inbox(time.Second)).To(Equal(uint32(5)))
	})

	It("releases a skipped seqno that arrives after all, once, when it arrives", func() {
		Expect(appendTo(reg, closes(2, 2))).To(Succeed())
		Expect(inbox(5 * gapWait)).To(Equal(uint32(2)))
		Expect(appendTo(reg, closes(1, 1))).To(Succeed())
		Expect(inbox(time.Second)).To(Equal(uint32(1)), "late, out of order, but not lost")
		Expect(appendTo(reg, closes(1, 1))).To(Succeed(), "a retry of it is a stale duplicate again")
		Expect(appendTo(reg, closes(3, 3))).To(Succeed())
		Expect(inbox(time.Second)).To(Equal(uint32(3)))
	})

	It("skips nothing when the missing seqno comes within the wait", func() {
		Expect(appendTo(reg, closes(2, 2))).To(Succeed())
		time.Sleep(gapWait / 3)
		Expect(appendTo(reg, closes(1, 1))).To(Succeed())
		Expect(inbox(time.Second)).To(Equal(uint32(1)))
		Expect(inbox(time.Second)).To(Equal(uint32(2)))
		By("a later gap gets a wait of its own")
		Expect(appendTo(reg, closes(4, 4))).To(Succeed())
		_, err := inbox(gapWait / 2)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(inbox(5 * gapWait)).To(Equal(uint32(4)))
	})
})
