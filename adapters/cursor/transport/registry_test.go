package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
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

// turnProbe lets a spec act as the run layer from outside the turn.
type turnProbe struct {
	turns chan *transport.Turn
	end   chan error
}

func (p *turnProbe) ServeRun(ctx context.Context, turn *transport.Turn) error {
	p.turns <- turn
	select {
	case err := <-p.end:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// appendTo appends a and keeps only the error.
func appendTo(reg *transport.Registry, a transport.Append) error {
	_, err := reg.Append(context.Background(), a)
	return err
}

func opening(model string) transport.Append {
	msg := cursortest.RunRequest("conv", model, "hi")
	raw, err := proto.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	return transport.Append{RequestID: "r1", Seqno: 0, Message: msg, Raw: raw}
}

var _ = Describe("Registry", func() {
	var (
		ctx   context.Context
		probe *turnProbe
		reg   *transport.Registry
		turn  *transport.Turn
	)

	BeforeEach(func() {
		ctx = context.Background()
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.OrphanGrace = time.Hour
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		Eventually(probe.turns).Should(Receive(&turn))
	})

	It("fills in the documented defaults", func() {
		cfg := transport.NewRegistry(probe, nil, transport.Config{}, zap.NewNop()).Config()
		Expect(cfg).To(Equal(transport.Config{
			RouteWait: 30 * time.Second, OrphanGrace: 30 * time.Second, Linger: 2 * time.Second,
			Heartbeat: 5 * time.Second, Retain: 60 * time.Second, MaxPending: 1024,
			MaxHeldBytes: 64 << 20, MaxHeldBytesTotal: 256 << 20, UpstreamIdle: 10 * time.Minute,
			MaxUnreadBytes: 1 << 20, MaxUnreadWait: 30 * time.Second,
			MaxReplayBytes: 4 << 20, ReplayAfterEnd: time.Second, GapWait: 3 * time.Second,
		}))
	})

	DescribeTable("hands out wire ids that are never 0 and never reused",
		func(next func(transport.Output) (uint32, error)) {
			seen := map[uint32]bool{}
			for range 100 {
				id, err := next(turn.Output)
				Expect(err).NotTo(HaveOccurred())
				Expect(id).NotTo(BeZero())
				Expect(seen).NotTo(HaveKey(id))
				seen[id] = true
			}
		},
		Entry("for ExecServerMessage.id", transport.Output.NextExecID),
		Entry("for InteractionQuery.id", transport.Output.NextInteractionID),
		Entry("for KvServerMessage.id", transport.Output.NextKvID),
	)

	It("keeps the three id spaces apart", func() {
		e, _ := turn.Output.NextExecID()
		i, _ := turn.Output.NextInteractionID()
		k, _ := turn.Output.NextKvID()
		Expect([]uint32{e, i, k}).To(Equal([]uint32{1, 1, 1}))
	})

	It("refuses sends once the turn has returned", func() {
		probe.end <- nil
		Eventually(func() error { return turn.Output.Send(cursortest.TextDelta("late")) }).Should(MatchError(transport.ErrTurnOver))
	})

	It("replays the log to a subscriber and ends it with the end-of-stream frame", func() {
		Expect(turn.Output.Send(cursortest.TextDelta("one"))).To(Succeed())
		probe.end <- nil
		sub, _, err := reg.Subscribe(ctx, "r1")
		Expect(err).NotTo(HaveOccurred())
		defer sub.Close()
		var got []*agentv1.AgentServerMessage
		var end []byte
		for {
			f, err := sub.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			fr, err := frame.NewReader(bytes.NewReader(f), 0).Next(ctx)
			Expect(err).NotTo(HaveOccurred())
			if fr.EndStream() {
				end = fr.Payload
				continue
			}
			m := &agentv1.AgentServerMessage{}
			Expect(proto.Unmarshal(fr.Payload, m)).To(Succeed())
			got = append(got, m)
		}
		Expect(got).To(HaveLen(1))
		Expect(cursortest.TextOf(got[0])).To(Equal("one"))
		Expect(string(end)).To(Equal("{}"))
	})

	It("refuses an empty request id", func() {
		Expect(appendTo(reg, transport.Append{Message: cursortest.Heartbeat(), Seqno: 1})).To(MatchError(transport.ErrEmptyRequestID))
		_, _, err := reg.Subscribe(ctx, "")
		Expect(err).To(MatchError(transport.ErrEmptyRequestID))
	})

	It("refuses appends after Close", func() {
		Expect(reg.Close(ctx)).To(Succeed())
		Expect(appendTo(reg, transport.Append{RequestID: "r2", Message: cursortest.Heartbeat(), Seqno: 1})).To(MatchError(transport.ErrRegistryClosed))
	})

	It("reports whether a request id has a live local transport", func() {
		Expect(reg.Owns(ctx, "r1")).To(BeTrue())
		Expect(reg.Owns(ctx, "elsewhere")).To(BeFalse())
	})

	It("tells an append that overtook its run request when it starts waiting, and never one that is queued at once", func() {
		waited := make(chan struct{}, 4)
		mark := func() { waited <- struct{}{} }
		Expect(appendTo(reg, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat(), Waiting: mark})).To(Succeed())
		Expect(waited).NotTo(Receive())

		done := make(chan error, 1)
		go func() {
			done <- appendTo(reg, transport.Append{RequestID: "r2", Seqno: 1, Message: cursortest.Heartbeat(), Waiting: mark})
		}()
		Eventually(waited).Should(Receive())
		Expect(done).NotTo(Receive(), "it is still waiting")
		open := opening("m")
		open.RequestID = "r2"
		Expect(appendTo(reg, open)).To(Succeed())
		Eventually(done).Should(Receive(BeNil()))
	})
})

var _ = Describe("Registry after a turn ended", func() {
	var (
		probe *turnProbe
		reg   *transport.Registry
	)
	BeforeEach(func() {
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.RouteWait = 5 * time.Second
		cfg.Retain = time.Minute
		reg = transport.NewRegistry(probe, nil, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
		Expect(appendTo(reg, opening("m"))).To(Succeed())
		Eventually(probe.turns).Should(Receive())
		probe.end <- nil
		Eventually(func() bool { return reg.Owns(context.Background(), "r1") }).Should(BeFalse())
	})

	kvReply := &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: &agentv1.KvClientMessage{
		Id: 3, Message: &agentv1.KvClientMessage_SetBlobResult{SetBlobResult: &agentv1.SetBlobResult{}}}}}

	It("accepts a late reply to the ended turn at once instead of holding it for a next turn", func() {
		start := time.Now()
		Expect(appendTo(reg, transport.Append{RequestID: "r1", Seqno: 9, Message: kvReply})).To(Succeed())
		Expect(time.Since(start)).To(BeNumerically("<", time.Second), "not held for the 5 s route wait")
		Consistently(probe.turns, 50*time.Millisecond).ShouldNot(Receive())
	})

	It("drops a cancel that arrives after its turn ended instead of feeding it to the next turn of the reused request id", func() {
		Expect(appendTo(reg, transport.Append{RequestID: "r1", Seqno: 2, Message: cursortest.Cancel("too late")})).To(Succeed())
		next := opening("m")
		next.Raw = append(next.Raw, 0) // another run request reusing the request id
		Expect(appendTo(reg, next)).To(Succeed())
		var turn *transport.Turn
		Eventually(probe.turns).Should(Receive(&turn))
		Expect(appendTo(reg, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})).To(Succeed())
		Expect(appendTo(reg, transport.Append{RequestID: "r1", Seqno: 2, Message: cursortest.ExecStreamClose(7)})).To(Succeed())
		m, err := turn.Inbox.Next(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(m.GetClientHeartbeat()).NotTo(BeNil())
		m, err = turn.Inbox.Next(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(m.GetExecClientControlMessage().GetStreamClose().GetId()).To(Equal(uint32(7)), "the next turn's own append 2, not the late cancel")
	})

	It("still holds a heartbeat that may overtake the next turn's run request", func() {
		done := make(chan error, 1)
		go func() {
			done <- appendTo(reg, transport.Append{RequestID: "r1", Seqno: 1, Message: cursortest.Heartbeat()})
		}()
		Consistently(done, 200*time.Millisecond).ShouldNot(Receive())
		next := opening("m")
		next.Raw = append(next.Raw, 0) // another run request reusing the request id
		Expect(appendTo(reg, next)).To(Succeed())
		Eventually(done).Should(Receive(BeNil()))
	})
})
