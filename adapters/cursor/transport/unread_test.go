package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("A turn's output to a slow subscriber", func() {
	const bound = 4 << 10
	var (
		ctx   context.Context
		probe *turnProbe
		reg   *transport.Registry
		turn  *transport.Turn
		// sent is the bytes of the frames the turn's sends put in the log.
		sent, sends atomic.Int64
	)
	// delta is send i's text, of a size that does not divide the bound.
	delta := func(i int) *agentv1.AgentServerMessage {
		return cursortest.TextDelta(fmt.Sprintf("token %04d of the answer ", i))
	}
	frameSize := func(m *agentv1.AgentServerMessage) int64 { return int64(frame.HeaderSize + proto.Size(m)) }
	const total = 1000
	produce := func() {
		go func() {
			defer GinkgoRecover()
			for i := range total {
				m := delta(i)
				Expect(turn.Output.Send(m)).To(Succeed())
				sent.Add(frameSize(m))
				sends.Add(1)
			}
		}()
	}

	BeforeEach(func() {
		ctx = context.Background()
		sent.Store(0)
		sends.Store(0)
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.OrphanGrace, cfg.MaxUnreadBytes, cfg.MaxUnreadWait = time.Hour, bound, time.Hour
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		Eventually(probe.turns).Should(Receive(&turn))
	})

	It("runs no further ahead of the subscriber than the bound, and the subscriber still gets every frame in order", func() {
		sub, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		defer sub.Close()
		produce()
		// The subscriber reads nothing yet: the turn stops at the bound.
		Eventually(sent.Load).Should(BeNumerically(">", bound))
		Consistently(sent.Load).Should(BeNumerically("<=", bound+frameSize(delta(total-1))))
		Expect(sends.Load()).To(BeNumerically("<", total))

		var read int64
		for i := range total {
			f, err := sub.Next(ctx)
			Expect(err).NotTo(HaveOccurred())
			read += int64(len(f))
			fr, err := frame.NewReader(bytesReader(f), 0).Next(ctx)
			Expect(err).NotTo(HaveOccurred())
			m := &agentv1.AgentServerMessage{}
			Expect(proto.Unmarshal(fr.Payload, m)).To(Succeed())
			Expect(cursortest.TextOf(m)).To(Equal(cursortest.TextOf(delta(i))))
			// Whatever the turn sent beyond what was read is within the
			// bound (plus the frame that crossed it).
			Expect(sent.Load()-read).To(BeNumerically("<=", bound+frameSize(delta(i))), "after frame %d", i)
		}
		Eventually(sends.Load).Should(BeEquivalentTo(total))
	})

	It("holds nothing back once the slow subscriber leaves, nor without a subscriber", func() {
		sub, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		produce()
		Eventually(sent.Load).Should(BeNumerically(">", bound))
		Expect(sends.Load()).To(BeNumerically("<", total))
		sub.Close()
		Eventually(sends.Load).Should(BeEquivalentTo(total))

		By("replaying the whole output to a subscriber that comes back")
		again, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		defer again.Close()
		for i := range total {
			f, err := again.Next(ctx)
			Expect(err).NotTo(HaveOccurred())
			fr, err := frame.NewReader(bytesReader(f), 0).Next(ctx)
			Expect(err).NotTo(HaveOccurred())
			m := &agentv1.AgentServerMessage{}
			Expect(proto.Unmarshal(fr.Payload, m)).To(Succeed())
			Expect(cursortest.TextOf(m)).To(Equal(cursortest.TextOf(delta(i))))
		}
	})

	It("is not held back by a stream another replica serves: the watch reads nothing here, the tap that publishes the output reads it all", func() {
		detach, ok := reg.Watch(ctx, "r1")
		Expect(ok).To(BeTrue())
		defer detach()
		tap := reg.Tap(ctx, "r1")
		Expect(tap).NotTo(BeNil())
		defer tap.Close()
		produce()
		var published int
		Eventually(func() int {
			frames, _ := tap.Pending()
			published += len(frames)
			return published
		}).Should(Equal(total), "the turn sends all its output while the tap keeps up")
		Expect(sends.Load()).To(BeEquivalentTo(total))
	})

	It("holds the turn back while the tap that publishes the output for another replica lags", func() {
		tap := reg.Tap(ctx, "r1")
		Expect(tap).NotTo(BeNil())
		defer tap.Close()
		produce()
		Eventually(sent.Load).Should(BeNumerically(">", bound))
		Consistently(sends.Load).Should(BeNumerically("<", total))
		Eventually(func() int64 {
			tap.Pending()
			return sends.Load()
		}).Should(BeEquivalentTo(total))
	})

	It("gives up waiting when the turn ends", func() {
		sub, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		defer sub.Close()
		blocked := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				if err := turn.Output.Send(delta(i)); err != nil {
					blocked <- err
					return
				}
			}
		}()
		probe.end <- nil
		Eventually(blocked).Should(Receive(MatchError(transport.ErrTurnOver)))
	})
})

var _ = Describe("A finished stream's replay", func() {
	It("keeps every frame for the subscribers reading it, and leaves the KV requests out once they all read it to its end", func() {
		ctx := context.Background()
		probe := &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		reg := transport.NewRegistry(probe, nil, cursortest.FastTimings(), zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		var turn *transport.Turn
		Eventually(probe.turns).Should(Receive(&turn))

		set := &agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_KvServerMessage{KvServerMessage: &agentv1.KvServerMessage{
			Id: 1, Message: &agentv1.KvServerMessage_SetBlobArgs{SetBlobArgs: &agentv1.SetBlobArgs{BlobId: []byte("id"), BlobData: make([]byte, 8<<10)}}}}}
		Expect(turn.Output.Send(cursortest.TextDelta("one "))).To(Succeed())
		Expect(turn.Output.Send(set)).To(Succeed())
		Expect(turn.Output.Send(cursortest.TextDelta("two"))).To(Succeed())

		// kinds reads sub to its end: the kinds of its frames.
		kinds := func(sub *transport.Subscription) []string {
			var out []string
			for {
				f, err := sub.Next(ctx)
				if errors.Is(err, io.EOF) {
					return out
				}
				Expect(err).NotTo(HaveOccurred())
				fr, err := frame.NewReader(bytesReader(f), 0).Next(ctx)
				Expect(err).NotTo(HaveOccurred())
				if fr.EndStream() {
					out = append(out, "end")
					continue
				}
				m := &agentv1.AgentServerMessage{}
				Expect(proto.Unmarshal(fr.Payload, m)).To(Succeed())
				out = append(out, cursortest.Kind(m))
			}
		}
		sub, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		probe.end <- nil
		all := kinds(sub)
		Expect(all).To(HaveLen(4))
		Expect(all[3]).To(Equal("end"))
		sub.Close()

		again, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		defer again.Close()
		Expect(kinds(again)).To(Equal([]string{all[0], all[2], "end"}))
	})
})
