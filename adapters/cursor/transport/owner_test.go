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

var _ = Describe("Request ids of each caller", func() {
	var (
		probe      *turnProbe
		reg        *transport.Registry
		alice, bob context.Context
		unknown    func(ctx context.Context) error
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
		// unknown is what the caller gets for a follow-up on a request id
		// nobody ever used.
		unknown = func(ctx context.Context) error {
			_, err := reg.Append(ctx, transport.Append{RequestID: "r-nobody", Seqno: 1, Message: cursortest.Heartbeat()})
			return err
		}
	})

	Context("with a local turn of alice's", func() {
		BeforeEach(func() {
			_, err := reg.Append(alice, opening("m"))
			Expect(err).NotTo(HaveOccurred())
			Eventually(probe.turns).Should(Receive())
		})

		It("takes the owner's later appends", func() {
			_, err := reg.Append(alice, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).NotTo(HaveOccurred())
		})

		It("answers another user's append exactly as one on a request id nobody used", func() {
			_, err := reg.Append(bob, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).To(MatchError(transport.ErrRouteTimeout))
			Expect(err).To(MatchError(unknown(bob).Error()))
		})

		It("answers an anonymous append to a user's request id as one on a request id nobody used", func() {
			_, err := reg.Append(context.Background(), transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).To(MatchError(transport.ErrRouteTimeout))
			Expect(err).To(MatchError(unknown(context.Background()).Error()))
		})

		It("opens another user's opening append as a turn of their own, leaving the owner's run alone", func() {
			_, err := reg.Append(bob, opening("m2"))
			Expect(err).NotTo(HaveOccurred())
			Eventually(probe.turns).Should(Receive())
			Expect(reg.Owns(alice, "r1")).To(BeTrue(), "alice's run is not superseded")
			Expect(reg.Owns(bob, "r1")).To(BeTrue())
		})

		It("reports the live run as owned to its owner only, so that a foreign payload cannot probe for it", func() {
			Expect(reg.Owns(alice, "r1")).To(BeTrue())
			Expect(reg.Owns(bob, "r1")).To(BeFalse())
			Expect(reg.Owns(context.Background(), "r1")).To(BeFalse())
		})

		It("answers another user's RunSSE as one on a request id nobody used, with none of the owner's frames", func() {
			sub, relay, err := reg.Subscribe(bob, "r1")
			Expect(err).To(MatchError(transport.ErrRouteTimeout))
			Expect(sub).To(BeNil())
			Expect(relay).To(BeNil())
			_, _, want := reg.Subscribe(bob, "r-nobody")
			Expect(err).To(MatchError(want.Error()))
			mine, _, err := reg.Subscribe(alice, "r1")
			Expect(err).NotTo(HaveOccurred())
			mine.Close()
		})

		It("answers the same after the owner's turn ended, while it is retained", func() {
			probe.end <- nil
			Eventually(func() bool { return reg.Owns(alice, "r1") }).Should(BeFalse())
			_, _, err := reg.Subscribe(bob, "r1")
			Expect(err).To(MatchError(transport.ErrRouteTimeout))
			_, err = reg.Append(bob, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).To(MatchError(unknown(bob).Error()))
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

	It("keeps another user's early RunSSE waiting for their own opening append, not the owner's", func() {
		errs := make(chan error, 1)
		go func() {
			_, _, err := reg.Subscribe(bob, "r1")
			errs <- err
		}()
		time.Sleep(20 * time.Millisecond)
		_, err := reg.Append(alice, opening("m"))
		Expect(err).NotTo(HaveOccurred())
		Eventually(errs).Should(Receive(MatchError(transport.ErrRouteTimeout)))
	})

	It("keeps an upstream turn's request id to its owner", func() {
		route, err := reg.Append(alice, opening("cursor-only"))
		Expect(err).NotTo(HaveOccurred())
		Expect(route).To(Equal(transport.Upstream))
		reg.OpeningForwarded(alice, "r1")
		_, err = reg.Append(bob, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
		Expect(err).To(MatchError(unknown(bob).Error()))
		_, relay, err := reg.Subscribe(bob, "r1")
		Expect(err).To(MatchError(transport.ErrRouteTimeout))
		Expect(relay).To(BeNil(), "no relay of alice's Cursor stream")
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
