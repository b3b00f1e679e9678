package cursor_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// providerError is the error a run layer returns for a failed model call.
func providerError() *connect.Error {
	ce := connect.NewError(connect.CodeUnavailable, errors.New("model overloaded"))
	det, err := connect.NewErrorDetail(&aiserverv1.ErrorDetails{
		Error:   aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR,
		Details: &aiserverv1.CustomErrorDetails{Title: "Provider Error", Detail: "model overloaded", IsRetryable: proto.Bool(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	ce.AddDetail(det)
	return ce
}

// waitForLabel is a script step: it blocks until the stream_close id arrives.
func waitForLabel(ctx context.Context, turn *transport.Turn, id uint32) error {
	for {
		m, err := turn.Inbox.Next(ctx)
		if err != nil {
			return context.Cause(ctx)
		}
		if isLabel(id)(m) {
			return nil
		}
	}
}

var _ = Describe("RunSSE", func() {
	var (
		ctx     context.Context
		script  cursortest.Script
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
		script = cursortest.Reply("Hel", "lo")
	})

	JustBeforeEach(func() {
		handler = cursortest.NewScriptedRunHandler(script)
		env = cursortest.Serve(handler, opts)
		DeferCleanup(env.Close)
		client = env.Client(newRequestID())
	})

	subscribe := func() *cursortest.Stream {
		s, err := client.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		return s
	}

	It("answers 200 with text/event-stream, no-cache and Connect frames", func() {
		s := subscribe()
		Expect(client.Send(ctx, run)).To(Succeed())
		Eventually(s.Done()).Should(BeClosed())
		Expect(s.Status).To(Equal(http.StatusOK))
		Expect(s.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(s.Header.Get("Cache-Control")).To(Equal("no-cache"))
		Expect(s.ReadError()).NotTo(HaveOccurred())
		Expect(s.Texts()).To(Equal([]string{"Hel", "lo"}))
	})

	It("waits for the request id when it arrives before the first append", func() {
		s := subscribe()
		Expect(handler.Turns()).To(BeEmpty())
		Expect(client.Send(ctx, run)).To(Succeed())
		Eventually(s.Texts).Should(Equal([]string{"Hel", "lo"}))
	})

	It("replays frames sent before anyone subscribed", func() {
		Expect(client.Send(ctx, run)).To(Succeed())
		Eventually(handler.Ended).Should(Equal(1))
		s := subscribe()
		Eventually(s.Done()).Should(BeClosed())
		Expect(s.Texts()).To(Equal([]string{"Hel", "lo"}))
	})

	Context("when a subscriber leaves and another comes back", func() {
		BeforeEach(func() {
			opts.Transport.OrphanGrace = 10 * time.Second
			script = func(ctx context.Context, turn *transport.Turn) error {
				Expect(turn.Output.Send(cursortest.TextDelta("a"))).To(Succeed())
				Expect(turn.Output.Send(cursortest.TextDelta("b"))).To(Succeed())
				if err := waitForLabel(ctx, turn, 99); err != nil {
					return err
				}
				return turn.Output.Send(cursortest.TextDelta("c"))
			}
		})

		It("replays every frame from the start, then live frames, and the run goes on", func() {
			first := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(first.Texts).Should(Equal([]string{"a", "b"}))
			first.Close()

			second := subscribe()
			Eventually(second.Texts).Should(Equal([]string{"a", "b"}))
			Expect(client.Send(ctx, label(99))).To(Succeed())
			Eventually(second.Done()).Should(BeClosed())
			Expect(second.Texts()).To(Equal([]string{"a", "b", "c"}))
			Expect(second.EndError()).To(BeNil())
			Expect(handler.Ends()).To(Equal([]error{nil}))
		})
	})

	Describe("end of stream", func() {
		It("is {} after a successful turn and the linger", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.Ended()).To(BeTrue())
			Expect(s.EndError()).To(BeNil())
		})

		Context("when the turn fails with a Connect error", func() {
			BeforeEach(func() {
				script = func(context.Context, *transport.Turn) error { return providerError() }
			})

			It("carries its code, message and aiserver.v1.ErrorDetails", func() {
				s := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(s.Done()).Should(BeClosed())
				end := s.EndError()
				Expect(end).To(HaveConnectCode(connect.CodeUnavailable))
				Expect(end.Message()).To(Equal("model overloaded"))
				Expect(end.Details()).To(HaveLen(1))
				v, err := end.Details()[0].Value()
				Expect(err).NotTo(HaveOccurred())
				Expect(v.(*aiserverv1.ErrorDetails).GetError()).To(Equal(aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR))
			})
		})

		Context("when the turn fails with a plain error", func() {
			BeforeEach(func() {
				script = func(context.Context, *transport.Turn) error { return errors.New("engine broke") }
			})

			It("is internal", func() {
				s := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(s.Done()).Should(BeClosed())
				Expect(s.EndError()).To(HaveConnectCode(connect.CodeInternal))
			})
		})

		Context("when the turn panics", func() {
			BeforeEach(func() {
				script = func(context.Context, *transport.Turn) error { panic("bug") }
			})

			It("is internal and the server keeps serving", func() {
				s := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(s.Done()).Should(BeClosed())
				Expect(s.EndError()).To(HaveConnectCode(connect.CodeInternal))
				other := env.Client(newRequestID())
				Expect(other.Send(ctx, run)).To(Succeed())
			})
		})

		Context("when nothing ever names the request id", func() {
			BeforeEach(func() { opts.Transport.RouteWait = 50 * time.Millisecond })

			It("is invalid_argument after the route wait", func() {
				s := subscribe()
				Eventually(s.Done()).Should(BeClosed())
				Expect(s.EndError()).To(HaveConnectCode(connect.CodeInvalidArgument))
			})
		})

		It("is invalid_argument, on HTTP 200, for a body that is not a BidiRequestId", func() {
			resp, err := env.HTTP1.Post(env.URL+"/agent.v1.AgentService/RunSSE", "application/connect+proto", bytes.NewReader([]byte{0xff, 0xfe}))
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			body := new(bytes.Buffer)
			_, _ = body.ReadFrom(resp.Body)
			Expect(body.String()).To(ContainSubstring(`"code":"invalid_argument"`))
		})

		It("is unavailable for live streams when the adapter shuts down", func() {
			script = nil
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Texts).Should(HaveLen(2))
			Expect(env.Server.Close(ctx)).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
		})
	})

	Describe("heartbeats", func() {
		BeforeEach(func() {
			script = func(ctx context.Context, turn *transport.Turn) error { return waitForLabel(ctx, turn, 99) }
		})

		Context("while the run is idle", func() {
			BeforeEach(func() { opts.Transport.Heartbeat = 20 * time.Millisecond })

			It("are sent periodically", func() {
				s := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(s.Heartbeats).Should(BeNumerically(">=", 2))
				Expect(s.Content()).To(BeEmpty())
			})
		})

		It("answer a client heartbeat on the connected stream, and every client heartbeat still reaches the turn", func() {
			rec := &cursortest.Recorder{}
			script = rec.Until(isLabel(99))
			handler = cursortest.NewScriptedRunHandler(script)
			env.Close()
			env = cursortest.Serve(handler, opts)
			client = env.Client(newRequestID())
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			// Answers go live to connected subscribers only, and the stream
			// attaches to the run only once the opening append arrived: a
			// heartbeat sent before that goes unanswered, as with Cursor,
			// which sends the next one a few seconds later.
			sent := 0
			Eventually(func() int {
				if s.Heartbeats() == 0 {
					Expect(client.Send(ctx, cursortest.Heartbeat())).To(Succeed())
					sent++
				}
				return s.Heartbeats()
			}).WithPolling(100 * time.Millisecond).Should(BeNumerically(">=", 1))
			Consistently(s.Heartbeats, "100ms").Should(BeNumerically("<=", sent), "at most one answer per heartbeat")
			Expect(client.Send(ctx, label(99))).To(Succeed())
			Eventually(rec.Messages).Should(HaveLen(sent + 1))
			for _, m := range rec.Messages()[:sent] {
				Expect(m.GetClientHeartbeat()).NotTo(BeNil())
			}
		})
	})

	Describe("orphan grace", func() {
		BeforeEach(func() {
			script = func(ctx context.Context, _ *transport.Turn) error {
				<-ctx.Done()
				return context.Cause(ctx)
			}
			opts.Transport.RouteWait = 100 * time.Millisecond
		})

		It("cancels the run when the last subscriber left and none came back", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1))
			s.Close()
			Eventually(handler.Ends).Should(Equal([]error{transport.ErrOrphaned}))

			late := subscribe()
			Eventually(late.Done()).Should(BeClosed())
			Expect(late.EndError()).To(HaveConnectCode(connect.CodeCanceled))
			Expect(late.EndError().Message()).To(Equal("run was cancelled"))
		})

		It("cancels a run that nobody ever subscribed to", func() {
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(handler.Ends).Should(Equal([]error{transport.ErrOrphaned}))
		})
	})

	Describe("after a successful turn", func() {
		BeforeEach(func() {
			opts.Transport.Linger = time.Second
			script = cursortest.Echo()
		})

		It("a follow-up action during the linger opens another turn on the same stream", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Texts).Should(Equal([]string{"echo: hello"}))
			Expect(client.Send(ctx, cursortest.FollowUp("more"))).To(Succeed())
			Eventually(s.Done()).WithTimeout(5 * time.Second).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"echo: hello", "echo: more"}))
			Expect(s.EndError()).To(BeNil())
			turns := handler.Turns()
			Expect(turns).To(HaveLen(2))
			Expect(turns[1].FollowUp.GetUserMessageAction().GetUserMessage().GetText()).To(Equal("more"))
			Expect(proto.Equal(turns[1].Request, run.GetRunRequest())).To(BeTrue())
		})

		It("a cancel during the linger opens no turn", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Texts).Should(HaveLen(1))
			Expect(client.Send(ctx, cursortest.Cancel("too late"))).To(Succeed())
			Eventually(s.Done()).WithTimeout(5 * time.Second).Should(BeClosed())
			Expect(handler.Turns()).To(HaveLen(1))
			Expect(s.EndError()).To(BeNil())
		})

		It("a run request during the linger opens another turn on the same stream", func() {
			s := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(s.Texts).Should(HaveLen(1))
			Expect(client.Send(ctx, cursortest.RunRequest("conv-1", "byok-model", "again"))).To(Succeed())
			Eventually(s.Done()).WithTimeout(5 * time.Second).Should(BeClosed())
			Expect(s.Texts()).To(Equal([]string{"echo: hello", "echo: again"}))
		})
	})
})
