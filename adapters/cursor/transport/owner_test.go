package transport_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/domain/identity"
)

// upstreamUnless answers that Keygate serves every model but "cursor-only".
func upstreamUnless(_ context.Context, model string) bool { return model != "cursor-only" }

var _ = Describe("Request id ownership", func() {
	var (
		probe      *turnProbe
		reg        *transport.Registry
		alice, bob context.Context
	)

	BeforeEach(func() {
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.OrphanGrace = time.Hour
		cfg.RouteWait = 200 * time.Millisecond
		reg = transport.NewRegistry(probe, upstreamUnless, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		alice = identity.NewContext(context.Background(), identity.Identity{UserID: "alice"})
		bob = identity.NewContext(context.Background(), identity.Identity{UserID: "bob"})
	})

	Context("of a local turn", func() {
		BeforeEach(func() {
			_, err := reg.Append(alice, opening("m"))
			Expect(err).NotTo(HaveOccurred())
			Eventually(probe.turns).Should(Receive())
		})

		It("takes the owner's later appends", func() {
			_, err := reg.Append(alice, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).NotTo(HaveOccurred())
		})

		It("refuses another user's append as if the request id did not exist", func() {
			_, err := reg.Append(bob, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).To(MatchError(transport.ErrNotYours))
			Expect(err.Error()).To(Equal("request id not found"))
		})

		It("refuses another user's opening append that would take the request id over", func() {
			_, err := reg.Append(bob, opening("m2"))
			Expect(err).To(MatchError(transport.ErrNotYours))
			Consistently(probe.turns, 50*time.Millisecond).ShouldNot(Receive())
		})

		It("refuses an anonymous append to a user's request id", func() {
			_, err := reg.Append(context.Background(), transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).To(MatchError(transport.ErrNotYours))
		})

		It("reports the live run as owned to its owner only, so that a foreign payload cannot probe for it", func() {
			Expect(reg.Owns(alice, "r1")).To(BeTrue())
			Expect(reg.Owns(bob, "r1")).To(BeFalse())
			Expect(reg.Owns(context.Background(), "r1")).To(BeFalse())
		})

		It("refuses another user's RunSSE", func() {
			_, _, err := reg.Subscribe(bob, "r1")
			Expect(err).To(MatchError(transport.ErrNotYours))
			sub, _, err := reg.Subscribe(alice, "r1")
			Expect(err).NotTo(HaveOccurred())
			sub.Close()
		})

		It("keeps the request id its owner's after the turn ended, while it is retained", func() {
			probe.end <- nil
			Eventually(func() bool { return reg.Owns(alice, "r1") }).Should(BeFalse())
			_, _, err := reg.Subscribe(bob, "r1")
			Expect(err).To(MatchError(transport.ErrNotYours))
			_, err = reg.Append(bob, opening("m"))
			Expect(err).To(MatchError(transport.ErrNotYours))
		})
	})

	It("runs each turn under its owner's identity, and an anonymous turn under none", func() {
		who := make(chan identity.Identity, 2)
		rec := transport.NewRegistry(identityProbe(who), nil, cursortest.FastTimings(), zap.NewNop())
		DeferCleanup(func() { Expect(rec.Close(context.Background())).To(Succeed()) })
		_, err := rec.Append(bob, opening("m"))
		Expect(err).NotTo(HaveOccurred())
		Eventually(who).Should(Receive(Equal(identity.Identity{UserID: "bob"})))
		anon := opening("m")
		anon.RequestID = "r2"
		_, err = rec.Append(context.Background(), anon)
		Expect(err).NotTo(HaveOccurred())
		Eventually(who).Should(Receive(BeZero()))
	})

	It("refuses an early RunSSE of another user once the owner's opening append arrives", func() {
		errs := make(chan error, 1)
		go func() {
			_, _, err := reg.Subscribe(bob, "r1")
			errs <- err
		}()
		time.Sleep(20 * time.Millisecond)
		_, err := reg.Append(alice, opening("m"))
		Expect(err).NotTo(HaveOccurred())
		Eventually(errs).Should(Receive(MatchError(transport.ErrNotYours)))
	})

	It("keeps an upstream turn's request id to its owner", func() {
		route, err := reg.Append(alice, opening("cursor-only"))
		Expect(err).NotTo(HaveOccurred())
		Expect(route).To(Equal(transport.Upstream))
		reg.OpeningForwarded("r1")
		_, err = reg.Append(bob, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
		Expect(err).To(MatchError(transport.ErrNotYours))
		_, _, err = reg.Subscribe(bob, "r1")
		Expect(err).To(MatchError(transport.ErrNotYours))
		route, err = reg.Append(alice, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
		Expect(err).NotTo(HaveOccurred())
		Expect(route).To(Equal(transport.Upstream))
	})
})

// identityProbe reports the identity each turn runs under, then ends it.
type identityProbe chan identity.Identity

func (p identityProbe) ServeRun(ctx context.Context, _ *transport.Turn) error {
	id, ok := identity.FromContext(ctx)
	if !ok {
		id = identity.Identity{}
	}
	p <- id
	return nil
}
