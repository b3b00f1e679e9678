package cursor_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("AgentService/Run over HTTP/2", func() {
	var (
		ctx     context.Context
		script  cursortest.Script
		rec     *cursortest.Recorder
		handler *cursortest.ScriptedRunHandler
		opts    cursor.Options
		env     *cursortest.Env
		client  *cursortest.Client
		run     *agentv1.AgentClientMessage
	)

	BeforeEach(func() {
		ctx = context.Background()
		opts = cursor.Options{Transport: cursortest.FastTimings()}
		run = cursortest.RunRequest("conv-1", "byok-model", "hello")
		rec = &cursortest.Recorder{}
		script = cursortest.Reply("over", " h2")
	})

	JustBeforeEach(func() {
		handler = cursortest.NewScriptedRunHandler(script)
		env = cursortest.Serve(handler, opts)
		DeferCleanup(env.Close)
		client = env.Client(newRequestID())
	})

	open := func(gzip bool) *cursortest.RunStream {
		rs, err := client.Run(ctx, env.H2C, run, gzip)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		return rs
	}

	It("serves a turn on one stream with application/connect+proto, keyed by x-request-id", func() {
		rs := open(false)
		Eventually(rs.Done()).Should(BeClosed())
		Expect(rs.Status).To(Equal(http.StatusOK))
		Expect(rs.ProtoMajor).To(Equal(2))
		Expect(rs.Header.Get("Content-Type")).To(Equal("application/connect+proto"))
		Expect(rs.Texts()).To(Equal([]string{"over", " h2"}))
		Expect(rs.EndError()).To(BeNil())
		Expect(handler.Turns()[0].RequestID).To(Equal(client.RequestID))
	})

	Context("with a turn that reads the uplink", func() {
		BeforeEach(func() { script = rec.Until(isLabel(99)) })

		It("feeds later frames to the turn in body order, gzip frames included", func() {
			rs := open(true)
			Expect(rs.Send(ctx, label(1))).To(Succeed())
			Expect(rs.Send(ctx, label(99))).To(Succeed())
			Eventually(func() []uint32 { return labels(rec.Messages()) }).Should(Equal([]uint32{1, 99}))
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(BeNil())
		})

		It("cancels the running turn when the uplink ends first", func() {
			rs := open(false)
			Eventually(handler.Turns).Should(HaveLen(1))
			Expect(rs.CloseSend()).To(Succeed())
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(HaveConnectCode(connect.CodeCanceled))
			Expect(handler.Ends()).To(Equal([]error{transport.ErrUplinkClosed}))
		})

		It("ends with invalid_argument when a later frame is not an agent message", func() {
			rs := open(false)
			Expect(rs.WriteFrame([]byte{0xff, 0xff}, 0)).To(Succeed())
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(HaveConnectCode(connect.CodeInvalidArgument))
		})
	})

	Context("with a long linger", func() {
		BeforeEach(func() { opts.Transport.Linger = time.Hour })

		It("ends with success once the uplink closes after a finished turn", func() {
			rs := open(false)
			Eventually(rs.Texts).Should(HaveLen(2))
			Eventually(handler.Ended).Should(Equal(1))
			Expect(rs.CloseSend()).To(Succeed())
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.Ended()).To(BeTrue())
			Expect(rs.EndError()).To(BeNil())
		})
	})

	Context("with a turn that stores a blob", func() {
		BeforeEach(func() {
			script = cursortest.StoreAndReadBack([]byte("checkpoint bytes"))
		})

		It("answers KV requests on the same stream", func() {
			rs := open(false)
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(BeNil())
			Expect(rs.Texts()).To(Equal([]string{"checkpoint bytes"}))
		})
	})

	Context("with a small frame limit", func() {
		BeforeEach(func() { opts.MaxFrameSize = 1024 })

		It("ends with resource_exhausted when a client frame is larger", func() {
			run = cursortest.RunRequest("conv-1", "byok-model", string(make([]byte, 4096)))
			rs := open(false)
			Eventually(rs.Done()).Should(BeClosed())
			Expect(rs.EndError()).To(HaveConnectCode(connect.CodeResourceExhausted))
		})
	})

	It("falls back to a random request id when x-request-id is missing", func() {
		client = cursortest.NewClient(env.URL, env.H2C, "")
		rs := open(false)
		Eventually(rs.Done()).Should(BeClosed())
		Expect(rs.Texts()).To(Equal([]string{"over", " h2"}))
		Expect(handler.Turns()[0].RequestID).NotTo(BeEmpty())
	})

	It("ends with invalid_argument when the first frame names no model", func() {
		run = cursortest.RunRequest("conv-1", "", "hello")
		rs := open(false)
		Eventually(rs.Done()).Should(BeClosed())
		Expect(rs.EndError()).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(handler.Turns()).To(BeEmpty())
	})

	It("ends with failed_precondition over HTTP/1.1", func() {
		resp, err := env.HTTP1.Post(env.URL+"/agent.v1.AgentService/Run", "application/connect+proto", bytes.NewReader(frame.Encode(0, nil)))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		f, err := frame.NewReader(resp.Body, 0).Next(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.EndStream()).To(BeTrue())
		end, err := frame.ParseEnd(f.Payload)
		Expect(err).NotTo(HaveOccurred())
		Expect(end).To(HaveConnectCode(connect.CodeFailedPrecondition))
	})

	It("ends with failed_precondition over HTTP/1.1 while the client's body is still streaming", func(ctx SpecContext) {
		body, uplink := io.Pipe()
		defer uplink.Close()
		go func() { _, _ = uplink.Write(frame.Encode(0, nil)) }() // and never ends the body
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.URL+"/agent.v1.AgentService/Run", body)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/connect+proto")
		resp, err := env.HTTP1.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		f, err := frame.NewReader(resp.Body, 0).Next(ctx)
		Expect(err).NotTo(HaveOccurred())
		end, err := frame.ParseEnd(f.Payload)
		Expect(err).NotTo(HaveOccurred())
		Expect(end).To(HaveConnectCode(connect.CodeFailedPrecondition))
	}, SpecTimeout(5*time.Second))
})
