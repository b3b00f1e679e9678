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

var _ = Describe("A subscription's Ready, which a writer batches frames by", func() {
	var (
		ctx   context.Context
		probe *turnProbe
		reg   *transport.Registry
		turn  *transport.Turn
		sub   *transport.Subscription
	)

	BeforeEach(func() {
		ctx = context.Background()
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.Heartbeat = time.Hour // no idle heartbeat in the way
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		Eventually(probe.turns).Should(Receive(&turn))
		var err error
		sub, _, err = reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sub.Close)
	})

	It("is true exactly while Next has a frame to return without waiting", func() {
		Expect(sub.Ready()).To(BeFalse(), "nothing was sent yet")
		for _, text := range []string{"one", "two", "three"} {
			Expect(turn.Output.Send(cursortest.TextDelta(text))).To(Succeed())
		}
		for range 3 {
			Expect(sub.Ready()).To(BeTrue())
			_, err := sub.Next(ctx)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(sub.Ready()).To(BeFalse(), "all three were read")

		By("the end of the stream, until it is read")
		probe.end <- nil
		Eventually(sub.Ready).Should(BeTrue())
		end, err := sub.Next(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(end).NotTo(BeEmpty())
		Expect(sub.Ready()).To(BeFalse(), "after the end only io.EOF is left")
	})
})
