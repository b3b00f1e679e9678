package cursor_test

import (
	"context"
	"net"
	"net/http"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// keygateOnly knows one Keygate model.
func keygateOnly(_ context.Context, modelID string) bool { return modelID == "byok-model" }

func hexOf(m *agentv1.AgentClientMessage) string {
	s, err := bidi.EncodeAppendData(m)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func wire(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	Expect(err).NotTo(HaveOccurred())
	return b
}

func seqnos(appends []*aiserverv1.BidiAppendRequest) []int64 {
	var out []int64
	for _, a := range appends {
		out = append(out, a.GetAppendSeqno())
	}
	return out
}

var _ = Describe("Per-run routing to Cursor", func() {
	var (
		ctx       context.Context
		fake      *fakeCursor
		cursorRun *agentv1.AgentClientMessage
		down      bool
		noUp      bool
		handler   *cursortest.ScriptedRunHandler
		env       *cursortest.Env
		client    *cursortest.Client
	)

	BeforeEach(func() {
		ctx = context.Background()
		fake = &fakeCursor{texts: []string{"from", " cursor"}}
		cursorRun = cursortest.RunRequest("conv-1", "cursor-model", "hello")
		down, noUp = false, false
	})

	JustBeforeEach(func() {
		srv, err := upstreamtest.NewFakeCursor(fake.routes())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		addr := srv.Addr
		if down {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			addr = ln.Addr().String()
			Expect(ln.Close()).To(Succeed())
		}
		fwd, err := upstream.New(upstream.Options{
			Proxy:   upstream.ProxyDirect,
			RootCAs: srv.Pool,
			Dial: upstreamtest.Dialer(map[string]string{
				"api2.cursor.sh:443": addr, "agentn.api5.cursor.sh:443": addr, "agent.api5.cursor.sh:443": addr,
			}),
		}, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fwd.CloseIdleConnections)
		opts := cursor.Options{Transport: cursortest.FastTimings(), Upstream: fwd, KeygateModel: keygateOnly}
		if noUp {
			opts.Upstream = nil
		}
		handler = cursortest.NewScriptedRunHandler(cursortest.Reply("from", " keygate"))
		env = cursortest.Serve(handler, opts)
		DeferCleanup(env.Close)
		client = env.Client(newRequestID())
		client.Header.Set("Authorization", "Bearer cursor-token")
	})

	subscribe := func() *cursortest.Stream {
		s, err := client.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		return s
	}

	Context("with a turn for a Cursor model over RunSSE and BidiAppend", func() {
		BeforeEach(func() { fake.gate = make(chan struct{}) })

		It("forwards every append unchanged and relays Cursor's RunSSE frame by frame", func() {
			later := []*agentv1.AgentClientMessage{cursortest.Heartbeat(), cursortest.ExecStreamClose(7)}
			Expect(client.Send(ctx, cursorRun)).To(Succeed())
			s := subscribe()
			for _, m := range later {
				Expect(client.Send(ctx, m)).To(Succeed())
			}
			Eventually(s.Texts).Should(Equal([]string{"from"}))
			Eventually(fake.gate).Should(BeSent(struct{}{}))
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"from", " cursor"}))
			Expect(s.Ended()).To(BeTrue())
			Expect(s.EndError()).To(BeNil())

			got := fake.Appends()
			Expect(seqnos(got)).To(Equal([]int64{0, 1, 2}))
			for i, m := range append([]*agentv1.AgentClientMessage{cursorRun}, later...) {
				Expect(got[i].GetData()).To(Equal(hexOf(m)))
				Expect(got[i].GetRequestId().GetRequestId()).To(Equal(client.RequestID))
			}
			Expect(fake.AppendHeaders()[0].Get("Authorization")).To(Equal("Bearer cursor-token"))
			sse := fake.SSE()
			Expect(sse).To(HaveLen(1))
			Expect(sse[0].Host).To(Equal("api2.cursor.sh"))
			Expect(sse[0].Body).To(Equal(frame.Encode(0, wire(&agentv1.BidiRequestId{RequestId: client.RequestID}))))
			Expect(sse[0].Header.Get("Content-Type")).To(Equal("application/connect+proto"))
			Expect(handler.Turns()).To(BeEmpty())
		})

		It("relays a RunSSE that arrived before the first append once the append routes it", func() {
			s := subscribe()
			Expect(client.Send(ctx, cursorRun)).To(Succeed())
			Eventually(fake.gate).Should(BeSent(struct{}{}))
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"from", " cursor"}))
			Expect(fake.SSE()).To(HaveLen(1))
			Expect(handler.Turns()).To(BeEmpty())
		})

		It("holds a heartbeat that overtook the first append until that append has gone to Cursor, then forwards it", func() {
			overtaken := make(chan error, 1)
			go func() { overtaken <- client.SendAt(ctx, 1, cursortest.Heartbeat()) }()
			Expect(client.SendAt(ctx, 0, cursorRun)).To(Succeed())
			Eventually(overtaken).Should(Receive(BeNil()))
			Expect(seqnos(fake.Appends())).To(Equal([]int64{0, 1}))
			Expect(fake.Appends()[0].GetData()).To(Equal(hexOf(cursorRun)))
			Expect(fake.Appends()[1].GetData()).To(Equal(hexOf(cursortest.Heartbeat())))
			Expect(handler.Turns()).To(BeEmpty())
		})
	})

	It("routes each turn of a reused request id by its own model", func() {
		first := subscribe()
		Expect(client.Send(ctx, cursorRun)).To(Succeed())
		Expect(client.Send(ctx, cursortest.Heartbeat())).To(Succeed())
		Eventually(first.Done()).Should(BeClosed())
		Expect(first.Texts()).To(Equal([]string{"from", " cursor"}))

		client.ResetSeqno()
		second := subscribe()
		Expect(client.Send(ctx, cursortest.RunRequest("conv-1", "byok-model", "and now?"))).To(Succeed())
		Eventually(second.Done()).Should(BeClosed())
		Expect(second.Texts()).To(Equal([]string{"from", " keygate"}))
		Expect(handler.Turns()).To(HaveLen(1))
		Expect(handler.Turns()[0].Request.GetRequestedModel().GetModelId()).To(Equal("byok-model"))
		Expect(seqnos(fake.Appends())).To(Equal([]int64{0, 1}))

		client.ResetSeqno()
		back := cursortest.RunRequest("conv-1", "cursor-model", "back to cursor")
		Expect(client.Send(ctx, back)).To(Succeed())
		third := subscribe()
		Eventually(third.Done()).Should(BeClosed())
		Expect(third.Texts()).To(Equal([]string{"from", " cursor"}))
		Expect(seqnos(fake.Appends())).To(Equal([]int64{0, 1, 0}))
		Expect(fake.Appends()[2].GetData()).To(Equal(hexOf(back)))
		Expect(fake.SSE()).To(HaveLen(2))
		Expect(handler.Turns()).To(HaveLen(1))
	})

	Context("with an HTTP/2 Run for a Cursor model", func() {
		DescribeTable("replays the frames read to choose the route, then relays both directions",
			func(gzip bool) {
				rs, err := client.Run(ctx, env.H2C, cursorRun, gzip)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(rs.Close)
				Eventually(rs.Texts).Should(Equal([]string{"frame 0"}))
				Expect(rs.Send(ctx, cursortest.Heartbeat())).To(Succeed())
				Eventually(rs.Texts).Should(Equal([]string{"frame 0", "frame 1"}))
				Expect(rs.CloseSend()).To(Succeed())
				Eventually(rs.Done()).Should(BeClosed())
				Expect(rs.Ended()).To(BeTrue())
				Expect(rs.EndError()).To(BeNil())
				Expect(fake.RunFrames()).To(Equal([][]byte{wire(cursorRun), wire(cursortest.Heartbeat())}))
				runs := fake.Runs()
				Expect(runs).To(HaveLen(1))
				Expect(runs[0].Host).To(Equal("agentn.api5.cursor.sh"))
				Expect(runs[0].Header.Get("X-Request-Id")).To(Equal(client.RequestID))
				Expect(handler.Turns()).To(BeEmpty())
			},
			Entry("with plain frames", false),
			Entry("with gzip frames", true),
		)

		It("goes to the host named in X-Server-Upstream-URL", func() {
			client.Header.Set(upstream.HeaderUpstreamURL, "https://agent.api5.cursor.sh/agent.v1.AgentService/Run")
			rs, err := client.Run(ctx, env.H2C, cursorRun, false)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(rs.Close)
			Expect(rs.CloseSend()).To(Succeed())
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.Texts()).To(Equal([]string{"frame 0"}))
			Expect(fake.Runs()[0].Host).To(Equal("agent.api5.cursor.sh"))
		})

		It("serves a Keygate model locally", func() {
			rs, err := client.Run(ctx, env.H2C, cursortest.RunRequest("conv-1", "byok-model", "hi"), false)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(rs.Close)
			Eventually(rs.Texts).Should(Equal([]string{"from", " keygate"}))
			Expect(fake.Runs()).To(BeEmpty())
		})
	})

	Context("when Cursor cannot be reached", func() {
		BeforeEach(func() { down = true })

		It("fails the forwarded append and ends the RunSSE with unavailable naming the cause", func() {
			err := client.Send(ctx, cursorRun)
			Expect(err).To(HaveConnectCode(connect.CodeUnavailable))
			Expect(err.Error()).To(ContainSubstring("connection refused"))
			s := subscribe()
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.EndError()).To(HaveConnectCode(connect.CodeUnavailable))
			Expect(s.EndError().Message()).To(ContainSubstring("connection refused"))
			Expect(handler.Turns()).To(BeEmpty())
		})

		It("ends an HTTP/2 Run with unavailable naming the cause", func() {
			rs, err := client.Run(ctx, env.H2C, cursorRun, false)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(rs.Close)
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(HaveConnectCode(connect.CodeUnavailable))
			Expect(rs.EndError().Message()).To(ContainSubstring("connection refused"))
		})
	})

	Context("when Cursor refuses the RunSSE with an HTTP status", func() {
		BeforeEach(func() { fake.status = http.StatusUnauthorized })

		It("ends the stream with the matching Connect code and the status", func() {
			Expect(client.Send(ctx, cursorRun)).To(Succeed())
			s := subscribe()
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.EndError()).To(HaveConnectCode(connect.CodeUnauthenticated))
			Expect(s.EndError().Message()).To(ContainSubstring("401"))
		})
	})

	It("forwards a foreign payload (speech-to-text) unchanged when no Foreign hook is set", func() {
		raw := &aiserverv1.BidiAppendRequest{
			Data:        "not hex at all",
			DataBinary:  []byte{1, 2, 3},
			RequestId:   &aiserverv1.BidiRequestId{RequestId: client.RequestID},
			AppendSeqno: 4,
		}
		Expect(client.SendRaw(ctx, raw)).To(Succeed())
		got := fake.Appends()
		Expect(got).To(HaveLen(1))
		Expect(proto.Equal(got[0], raw)).To(BeTrue())
		Expect(fake.AppendHeaders()[0].Get("Authorization")).To(Equal("Bearer cursor-token"))
	})

	Context("without an upstream", func() {
		BeforeEach(func() { noUp = true })

		It("hands a Cursor model's turn to the run handler", func() {
			s := subscribe()
			Expect(client.Send(ctx, cursorRun)).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
			Expect(handler.Turns()).To(HaveLen(1))
			Expect(fake.Appends()).To(BeEmpty())
		})
	})
})
