package transport_test

import (
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

// keygateKnows is a KeygateModel that knows "byok".
func keygateKnows(_ context.Context, modelID string) bool { return modelID == "byok" }

// openingOn is the seqno-0 run_request of requestID naming model.
func openingOn(requestID, model, text string) transport.Append {
	msg := cursortest.RunRequest("conv", model, text)
	raw, err := proto.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	return transport.Append{RequestID: requestID, Seqno: 0, Message: msg, Raw: raw}
}

// lastFrame reads sub to its end and returns the end-of-stream payload.
func lastFrame(ctx context.Context, sub *transport.Subscription) string {
	var end []byte
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return string(end)
		}
		Expect(err).NotTo(HaveOccurred())
		fr, err := frame.NewReader(bytesReader(f), 0).Next(ctx)
		Expect(err).NotTo(HaveOccurred())
		if fr.EndStream() {
			end = fr.Payload
		}
	}
}

var _ = Describe("Registry routing", func() {
	var (
		ctx   context.Context
		probe *turnProbe
		reg   *transport.Registry
	)

	BeforeEach(func() {
		ctx = context.Background()
		probe = &turnProbe{turns: make(chan *transport.Turn, 4), end: make(chan error, 4)}
		cfg := cursortest.FastTimings()
		cfg.OrphanGrace = time.Hour
		reg = transport.NewRegistry(probe, keygateKnows, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(reg.Close(context.Background())).To(Succeed()) })
	})

	DescribeTable("RouteOf sends a turn to Cursor only when the predicate does not know its model",
		func(keygate transport.KeygateModel, req *agentv1.AgentRunRequest, want transport.Route) {
			r := transport.NewRegistry(probe, keygate, cursortest.FastTimings(), zap.NewNop())
			Expect(r.RouteOf(ctx, req)).To(Equal(want))
		},
		Entry("a Keygate model is local", transport.KeygateModel(keygateKnows),
			cursortest.RunRequest("c", "byok", "x").GetRunRequest(), transport.Local),
		Entry("another model is upstream", transport.KeygateModel(keygateKnows),
			cursortest.RunRequest("c", "gpt-cursor", "x").GetRunRequest(), transport.Upstream),
		Entry("model_details.model_id counts when requested_model is absent", transport.KeygateModel(keygateKnows),
			&agentv1.AgentRunRequest{ModelDetails: &agentv1.ModelDetails{ModelId: "gpt-cursor"}}, transport.Upstream),
		Entry("without a predicate every turn is local", nil,
			cursortest.RunRequest("c", "gpt-cursor", "x").GetRunRequest(), transport.Local),
	)

	Context("when the opening append names a Cursor model", func() {
		var route transport.Route

		BeforeEach(func() {
			var err error
			route, err = reg.Append(ctx, openingOn("up", "gpt-cursor", "hi"))
			Expect(err).NotTo(HaveOccurred())
		})

		It("routes it and every later append upstream without starting a turn", func() {
			Expect(route).To(Equal(transport.Upstream))
			reg.OpeningForwarded(ctx, "up")
			later, err := reg.Append(ctx, transport.Append{RequestID: "up", Seqno: 1, Message: cursortest.Heartbeat()})
			Expect(err).NotTo(HaveOccurred())
			Expect(later).To(Equal(transport.Upstream))
			Expect(probe.turns).NotTo(Receive())
			Expect(reg.Owns(ctx, "up")).To(BeFalse())
		})

		It("hands a RunSSE a relay instead of a subscription", func() {
			sub, relay, err := reg.Subscribe(ctx, "up")
			Expect(err).NotTo(HaveOccurred())
			Expect(sub).To(BeNil())
			Expect(relay).NotTo(BeNil())
			relay.Close()
		})

		It("takes the request id back when its next turn names a Keygate model", func() {
			reg.OpeningForwarded(ctx, "up")
			relay := func() *transport.Relay {
				_, rl, err := reg.Subscribe(ctx, "up")
				Expect(err).NotTo(HaveOccurred())
				return rl
			}()
			relay.Ended()
			relay.Close()

			subscribed := make(chan *transport.Subscription, 1)
			go func() {
				defer GinkgoRecover()
				sub, rl, err := reg.Subscribe(ctx, "up")
				Expect(err).NotTo(HaveOccurred())
				Expect(rl).To(BeNil())
				subscribed <- sub
			}()
			back, err := reg.Append(ctx, openingOn("up", "byok", "again"))
			Expect(err).NotTo(HaveOccurred())
			Expect(back).To(Equal(transport.Local))
			var turn *transport.Turn
			Eventually(probe.turns).Should(Receive(&turn))
			Expect(turn.Request.GetRequestedModel().GetModelId()).To(Equal("byok"))
			var sub *transport.Subscription
			Eventually(subscribed).Should(Receive(&sub))
			Expect(sub).NotTo(BeNil())
			sub.Close()
		})
	})

	It("ends a lingering local stream with {} when its request id is reused for a Cursor turn", func() {
		cfg := cursortest.FastTimings()
		cfg.Linger = time.Hour
		r := transport.NewRegistry(probe, keygateKnows, cfg, zap.NewNop())
		DeferCleanup(func() { Expect(r.Close(context.Background())).To(Succeed()) })
		_, err := r.Append(ctx, openingOn("mixed", "byok", "hi"))
		Expect(err).NotTo(HaveOccurred())
		var turn *transport.Turn
		Eventually(probe.turns).Should(Receive(&turn))
		sub, _, err := r.Subscribe(ctx, "mixed")
		Expect(err).NotTo(HaveOccurred())
		defer sub.Close()
		probe.end <- nil // the local turn succeeds and the stream lingers
		Eventually(func() error { return turn.Output.Send(cursortest.TextDelta("late")) }).Should(MatchError(transport.ErrTurnOver))

		route, err := r.Append(ctx, openingOn("mixed", "gpt-cursor", "next"))
		Expect(err).NotTo(HaveOccurred())
		Expect(route).To(Equal(transport.Upstream))
		Expect(lastFrame(ctx, sub)).To(Equal("{}"))
	})
})

func bytesReader(b []byte) io.Reader { return &sliceReader{b: b} }

type sliceReader struct{ b []byte }

func (s *sliceReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}
