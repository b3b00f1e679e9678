package transport_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/domain/identity"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// as is ctx carrying user's identity, as the Cursor proxy puts it there.
func as(user string) context.Context {
	return identity.NewContext(context.Background(), identity.Identity{UserID: user})
}

// blob is an append of about n bytes: a KV reply carrying n bytes of data.
func blob(id string, seqno int64, n int) transport.Append {
	msg := &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: &agentv1.KvClientMessage{
		Id: uint32(seqno), Message: &agentv1.KvClientMessage_GetBlobResult{GetBlobResult: &agentv1.GetBlobResult{BlobData: make([]byte, n)}},
	}}}
	raw, err := proto.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	return transport.Append{RequestID: id, Seqno: seqno, Message: msg, Raw: raw}
}

// openingFor is the opening append of request id with a text of n bytes.
func openingFor(id, model string, n int) transport.Append {
	msg := cursortest.RunRequest("conv-"+id, model, string(make([]byte, n)))
	raw, err := proto.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	return transport.Append{RequestID: id, Seqno: 0, Message: msg, Raw: raw}
}

// overBudget matches an *OverBudgetError for the caller alone (everyone
// false) or for all callers together.
func overBudget(everyone bool) OmegaMatcher {
	return WithTransform(func(err error) bool {
		var ob *transport.OverBudgetError
		return errors.As(err, &ob) && ob.Everyone == everyone
	}, BeTrue())
}

var _ = Describe("Registry bounds on what callers make it hold", func() {
	var (
		probe *turnProbe
		cfg   transport.Config
		reg   *transport.Registry
	)

	BeforeEach(func() {
		probe = &turnProbe{turns: make(chan *transport.Turn, 8), end: make(chan error, 8)}
		cfg = cursortest.FastTimings()
		cfg.OrphanGrace = time.Hour
		cfg.MaxHeldBytes = 10 << 10
		cfg.MaxHeldBytesTotal = 25 << 10
	})

	JustBeforeEach(func() {
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
	})

	Describe("appends buffered out of order", func() {
		It("refuses the append that takes a caller over its bytes, with a message saying so, and lets another caller go on", func() {
			Expect(reg.Append(as("alice"), openingFor("a1", "m", 10))).Error().NotTo(HaveOccurred())
			Expect(reg.Append(as("bob"), openingFor("b1", "m", 10))).Error().NotTo(HaveOccurred())

			Expect(reg.Append(as("alice"), blob("a1", 2, 4<<10))).Error().NotTo(HaveOccurred())
			Expect(reg.Append(as("alice"), blob("a1", 3, 4<<10))).Error().NotTo(HaveOccurred())
			_, err := reg.Append(as("alice"), blob("a1", 4, 4<<10))
			Expect(err).To(overBudget(false))
			Expect(err).To(MatchError(ContainSubstring("bytes of your appends are waiting to be applied")))
			Expect(err).To(MatchError(ContainSubstring("limit 10240 per user")))

			By("bob, under his own bound, is not affected")
			Expect(reg.Append(as("bob"), blob("b1", 2, 4<<10))).Error().NotTo(HaveOccurred())
			Expect(reg.Append(as("bob"), blob("b1", 3, 4<<10))).Error().NotTo(HaveOccurred())
		})

		It("returns the bytes as the run reads its inbox", func() {
			Expect(reg.Append(as("alice"), openingFor("a1", "m", 10))).Error().NotTo(HaveOccurred())
			var turn *transport.Turn
			Eventually(probe.turns).Should(Receive(&turn))
			Expect(reg.Append(as("alice"), blob("a1", 2, 4<<10))).Error().NotTo(HaveOccurred())
			Expect(reg.Append(as("alice"), blob("a1", 1, 4<<10))).Error().NotTo(HaveOccurred())
			Expect(reg.Stats().HeldBytes).To(BeNumerically(">", 8<<10))
			for range 2 {
				_, err := turn.Inbox.Next(context.Background())
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(reg.Stats().HeldBytes).To(BeZero())
			Expect(reg.Append(as("alice"), blob("a1", 4, 8<<10))).Error().NotTo(HaveOccurred())
		})

		It("returns them all when the stream ends, read or not", func() {
			Expect(reg.Append(as("alice"), openingFor("a1", "m", 10))).Error().NotTo(HaveOccurred())
			Eventually(probe.turns).Should(Receive())
			Expect(reg.Append(as("alice"), blob("a1", 1, 4<<10))).Error().NotTo(HaveOccurred()) // released, unread
			Expect(reg.Append(as("alice"), blob("a1", 5, 4<<10))).Error().NotTo(HaveOccurred()) // buffered
			Expect(reg.Stats().HeldBytes).To(BeNumerically(">", 8<<10))
			probe.end <- errors.New("the turn failed")
			Eventually(func() int64 { return reg.Stats().HeldBytes }).Should(BeZero())
		})
	})

	It("bounds all callers together, refusing the caller who would go over", func() {
		for _, u := range []string{"alice", "bob", "carol"} {
			Expect(reg.Append(as(u), openingFor(u, "m", 10))).Error().NotTo(HaveOccurred())
		}
		Expect(reg.Append(as("alice"), blob("alice", 2, 9<<10))).Error().NotTo(HaveOccurred())
		Expect(reg.Append(as("bob"), blob("bob", 2, 9<<10))).Error().NotTo(HaveOccurred())
		_, err := reg.Append(as("carol"), blob("carol", 2, 9<<10))
		Expect(err).To(overBudget(true))
		Expect(err).To(MatchError(ContainSubstring("from all users")))
	})

	It("counts an append that waits for its opening append, and returns its bytes when it gives up", func() {
		cfg.RouteWait = 300 * time.Millisecond
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		waiting := make(chan error, 1)
		go func() {
			_, err := reg.Append(as("alice"), blob("never", 1, 8<<10))
			waiting <- err
		}()
		Eventually(func() int64 { return reg.Stats().HeldBytes }).Should(BeNumerically(">", 8<<10))
		_, err := reg.Append(as("alice"), blob("never-either", 1, 8<<10))
		Expect(err).To(overBudget(false))
		Eventually(waiting).Should(Receive(MatchError(transport.ErrRouteTimeout)))
		Expect(reg.Stats()).To(Equal(transport.Stats{}))
	})

	Describe("request ids that never open", func() {
		It("leave the registry's maps empty once 1,000 of them are abandoned by subscribers and appends alike", func() {
			cfg.RouteWait = 200 * time.Millisecond
			cfg.MaxHeldBytes = 64 << 20
			cfg.MaxHeldBytesTotal = 64 << 20
			reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
			var wg sync.WaitGroup
			for i := range 1000 {
				id := fmt.Sprintf("abandoned-%04d", i)
				wg.Go(func() {
					// A RunSSE whose client leaves.
					ctx, cancel := context.WithTimeout(as("mallory"), 20*time.Millisecond)
					defer cancel()
					_, _, err := reg.Subscribe(ctx, id)
					Expect(err).To(MatchError(context.DeadlineExceeded))
				})
				wg.Go(func() {
					// An append that waits out the route wait.
					_, err := reg.Append(as("mallory"), blob(id, 1, 1<<10))
					Expect(err).To(MatchError(transport.ErrRouteTimeout))
				})
			}
			wg.Wait()
			Expect(reg.Stats()).To(Equal(transport.Stats{}), "no wait entry, mark, transport or held byte is left")
		})
	})

	Describe("turns routed to Cursor", func() {
		var notKeygate transport.KeygateModel = func(context.Context, string) bool { return false }

		JustBeforeEach(func() {
			reg = transport.NewRegistry(probe, notKeygate, cfg, zap.NewNop())
		})

		It("forget their mark on a timer, with nobody touching the registry", func() {
			cfg.UpstreamIdle = 100 * time.Millisecond
			reg = transport.NewRegistry(probe, notKeygate, cfg, zap.NewNop())
			route, err := reg.Append(as("alice"), openingFor("u1", "cursor-model", 10))
			Expect(err).NotTo(HaveOccurred())
			Expect(route).To(Equal(transport.Upstream))
			reg.OpeningForwarded(as("alice"), "u1")
			Expect(reg.Stats().UpstreamMarks).To(Equal(1))
			Eventually(reg.Stats).Should(Equal(transport.Stats{}))
		})

		It("keep a digest of the opening append, not its bytes", func() {
			cfg.MaxHeldBytes = 1 << 20
			reg = transport.NewRegistry(probe, notKeygate, cfg, zap.NewNop())
			heap := func() uint64 {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			before := heap()
			for i := range 100 {
				id := fmt.Sprintf("u%03d", i)
				_, err := reg.Append(as("alice"), openingFor(id, "cursor-model", 1<<20))
				Expect(err).NotTo(HaveOccurred())
				reg.OpeningForwarded(as("alice"), id)
			}
			Expect(reg.Stats().UpstreamMarks).To(Equal(100))
			Expect(heap()).To(BeNumerically("<", before+10<<20), "100 opening appends of 1 MiB are not kept")
		})

		It("count their marks against the caller's bytes", func() {
			cfg.MaxHeldBytes = 2 << 10
			reg = transport.NewRegistry(probe, notKeygate, cfg, zap.NewNop())
			var err error
			n := 0
			for ; n < 100 && err == nil; n++ {
				_, err = reg.Append(as("alice"), openingFor(fmt.Sprintf("u%03d", n), "cursor-model", 10))
			}
			Expect(err).To(overBudget(false))
			Expect(n).To(BeNumerically("<", 100))
			Expect(reg.Append(as("bob"), openingFor("b1", "cursor-model", 10))).Error().NotTo(HaveOccurred())
		})
	})
})
