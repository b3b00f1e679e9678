package cursor_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// send is one append of an ordering rule: seqno and message.
type send struct {
	seqno int64
	msg   *agentv1.AgentClientMessage
}

// foreignHook records the appends passed through.
type foreignHook struct {
	mu   sync.Mutex
	seen []*aiserverv1.BidiAppendRequest
}

func (f *foreignHook) ForeignAppend(_ context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, req.Msg)
	return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
}

func (f *foreignHook) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

var _ = Describe("BidiAppend", func() {
	var (
		ctx      context.Context
		rec      *cursortest.Recorder
		handler  *cursortest.ScriptedRunHandler
		opts     cursor.Options
		hook     *foreignHook
		env      *cursortest.Env
		client   *cursortest.Client
		run      *agentv1.AgentClientMessage
		startEnv func()
	)

	BeforeEach(func() {
		ctx = context.Background()
		rec = &cursortest.Recorder{}
		handler = cursortest.NewScriptedRunHandler(rec.Until(isLabel(99)))
		hook = &foreignHook{}
		opts = cursor.Options{Transport: cursortest.FastTimings(), Foreign: hook}
		run = cursortest.RunRequest("conv-1", "byok-model", "hello")
		startEnv = func() {
			env = cursortest.Serve(handler, opts)
			DeferCleanup(env.Close)
			client = env.Client(newRequestID())
		}
	})

	Describe("ordering and idempotency", func() {
		BeforeEach(func() { startEnv() })

		DescribeTable("the turn receives each append once, in seqno order",
			func(sends func() []send, want []uint32) {
				for _, s := range sends() {
					Expect(client.SendAt(ctx, s.seqno, s.msg)).To(Succeed())
				}
				Eventually(func() []uint32 { return labels(rec.Messages()) }).Should(Equal(want))
				Expect(handler.Turns()).To(HaveLen(1))
			},
			Entry("appends that arrive in order are released in order",
				func() []send { return []send{{0, run}, {1, label(1)}, {2, label(2)}, {3, label(99)}} },
				[]uint32{1, 2, 99}),
			Entry("an append ahead of its predecessor is buffered and released after it",
				func() []send { return []send{{0, run}, {3, label(99)}, {2, label(2)}, {1, label(1)}} },
				[]uint32{1, 2, 99}),
			Entry("a stale duplicate is answered 200 and ignored",
				func() []send { return []send{{0, run}, {1, label(1)}, {1, label(1)}, {2, label(99)}} },
				[]uint32{1, 99}),
			Entry("a duplicate of a buffered append is ignored",
				func() []send { return []send{{0, run}, {2, label(2)}, {2, label(2)}, {1, label(1)}, {3, label(99)}} },
				[]uint32{1, 2, 99}),
			Entry("a retried opening append (same bytes) starts no second turn",
				func() []send { return []send{{0, run}, {0, run}, {1, label(99)}} },
				[]uint32{99}),
			Entry("a negative seqno is released at once, outside the ordering",
				func() []send { return []send{{0, run}, {2, label(2)}, {-1, label(7)}, {1, label(1)}, {3, label(99)}} },
				[]uint32{7, 1, 2, 99}),
		)

		It("delivers the opening run request to the turn with the request id", func() {
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1))
			turn := handler.Turns()[0]
			Expect(turn.RequestID).To(Equal(client.RequestID))
			Expect(proto.Equal(turn.Request, run.GetRunRequest())).To(BeTrue())
			Expect(turn.FollowUp).To(BeNil())
		})

		It("answers once the message is queued, while the turn is still busy", func() {
			handler = cursortest.NewScriptedRunHandler(func(ctx context.Context, _ *transport.Turn) error {
				<-ctx.Done()
				return context.Cause(ctx)
			})
			env.Close()
			startEnv()
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Expect(client.SendAt(ctx, 1, label(1))).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1)) // the turn starts on its own goroutine
			Expect(handler.Ended()).To(BeZero())
		})

		It("refuses more buffered appends than the limit with resource_exhausted", func() {
			opts.Transport.MaxPending = 2
			env.Close()
			startEnv()
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Expect(client.SendAt(ctx, 5, label(5))).To(Succeed())
			Expect(client.SendAt(ctx, 6, label(6))).To(Succeed())
			Expect(client.SendAt(ctx, 7, label(7))).To(HaveConnectCode(connect.CodeResourceExhausted))
		})
	})

	Describe("a request id reused for a new turn", func() {
		BeforeEach(func() { startEnv() })

		It("supersedes the running turn and restarts the numbering at a new opening append", func() {
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Expect(client.SendAt(ctx, 1, label(1))).To(Succeed())
			Eventually(func() []uint32 { return labels(rec.Messages()) }).Should(Equal([]uint32{1}))

			next := cursortest.RunRequest("conv-1", "byok-model", "second question")
			Expect(client.SendAt(ctx, 0, next)).To(Succeed())
			Expect(client.SendAt(ctx, 1, label(99))).To(Succeed())

			Eventually(handler.Turns).Should(HaveLen(2))
			Eventually(handler.Ends).Should(ContainElement(MatchError(transport.ErrSuperseded)))
			Expect(proto.Equal(handler.Turns()[1].Request, next.GetRunRequest())).To(BeTrue())
			Eventually(func() []uint32 { return labels(rec.Messages()) }).Should(Equal([]uint32{1, 99}))
		})

		It("gets a fresh transport once the previous stream has ended", func() {
			handler = cursortest.NewScriptedRunHandler(cursortest.Echo())
			env.Close()
			startEnv()
			first, err := client.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(first.Done()).Should(BeClosed())
			Expect(first.Texts()).To(Equal([]string{"echo: hello"}))

			client.ResetSeqno()
			Expect(client.Send(ctx, cursortest.RunRequest("conv-1", "byok-model", "again"))).To(Succeed())
			second, err := client.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			Eventually(second.Done()).Should(BeClosed())
			Expect(second.Texts()).To(Equal([]string{"echo: again"}), "a new turn's stream replays only that turn")
			Expect(handler.Turns()).To(HaveLen(2))
		})
	})

	Describe("the first append must select a model", func() {
		BeforeEach(func() { startEnv() })

		DescribeTable("an opening append without a model is refused with invalid_argument",
			func(msg func() *agentv1.AgentClientMessage) {
				err := client.SendAt(ctx, 0, msg())
				Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
				Expect(err.Error()).To(ContainSubstring("first BidiAppend message must select a model"))
				Expect(handler.Turns()).To(BeEmpty())
			},
			Entry("a run request naming no model", func() *agentv1.AgentClientMessage {
				return cursortest.RunRequest("conv-1", "", "hello")
			}),
			Entry("a heartbeat", cursortest.Heartbeat),
			Entry("a prewarm request", func() *agentv1.AgentClientMessage {
				return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_PrewarmRequest{PrewarmRequest: &agentv1.PrewarmRequest{}}}
			}),
		)

		It("accepts model_details.model_id when requested_model is absent", func() {
			msg := cursortest.RunRequest("conv-1", "", "hello")
			msg.GetRunRequest().ModelDetails = &agentv1.ModelDetails{ModelId: "byok-model"}
			Expect(client.SendAt(ctx, 0, msg)).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1))
		})
	})

	Describe("appends that overtake the run request", func() {
		It("wait for the run request and are then released after it", func() {
			startEnv()
			overtaker := make(chan error, 1)
			go func() { overtaker <- client.SendAt(ctx, 1, label(99)) }()
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Eventually(overtaker).Should(Receive(BeNil()))
			Eventually(func() []uint32 { return labels(rec.Messages()) }).Should(Equal([]uint32{99}))
		})

		It("fail with invalid_argument when no run request arrives within the route wait", func() {
			opts.Transport.RouteWait = 50 * time.Millisecond
			startEnv()
			err := client.SendAt(ctx, 1, cursortest.Heartbeat())
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("timed out waiting for the initial BidiAppend model selection"))
		})

		It("fail with invalid_argument when the opening append names no model", func() {
			startEnv()
			overtaker := make(chan error, 1)
			go func() { overtaker <- client.SendAt(ctx, 1, cursortest.Heartbeat()) }()
			Expect(client.SendAt(ctx, 0, cursortest.RunRequest("conv-1", "", "x"))).To(HaveConnectCode(connect.CodeInvalidArgument))
			// Refused at once if it was already waiting, else after the route wait.
			Eventually(overtaker).WithTimeout(5 * time.Second).Should(Receive(HaveConnectCode(connect.CodeInvalidArgument)))
		})
	})

	Describe("foreign payloads (speech-to-text reuses the route)", func() {
		BeforeEach(func() { startEnv() })

		DescribeTable("go to the pass-through hook instead of failing",
			func(req func(id string) *aiserverv1.BidiAppendRequest) {
				Expect(client.SendRaw(ctx, req(client.RequestID))).To(Succeed())
				Expect(hook.count()).To(Equal(1))
				Expect(handler.Turns()).To(BeEmpty())
			},
			Entry("data that is not hex", func(id string) *aiserverv1.BidiAppendRequest {
				return &aiserverv1.BidiAppendRequest{Data: "audio chunk", RequestId: &aiserverv1.BidiRequestId{RequestId: id}}
			}),
			Entry("hex that is not an AgentClientMessage", func(id string) *aiserverv1.BidiAppendRequest {
				return &aiserverv1.BidiAppendRequest{Data: "ffff", RequestId: &aiserverv1.BidiRequestId{RequestId: id}}
			}),
			Entry("an AgentClientMessage without its oneof", func(id string) *aiserverv1.BidiAppendRequest {
				return &aiserverv1.BidiAppendRequest{Data: "", RequestId: &aiserverv1.BidiRequestId{RequestId: id}}
			}),
			Entry("data_binary", func(id string) *aiserverv1.BidiAppendRequest {
				return &aiserverv1.BidiAppendRequest{DataBinary: []byte{1, 2}, RequestId: &aiserverv1.BidiRequestId{RequestId: id}}
			}),
		)

		It("are answered 200 and kept local when the request id belongs to a local run", func() {
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Expect(client.SendRaw(ctx, &aiserverv1.BidiAppendRequest{Data: "audio", RequestId: &aiserverv1.BidiRequestId{RequestId: client.RequestID}})).To(Succeed())
			Expect(hook.count()).To(BeZero())
		})

		It("are refused with invalid_argument when no hook is configured", func() {
			opts.Foreign = nil
			env.Close()
			startEnv()
			err := client.SendRaw(ctx, &aiserverv1.BidiAppendRequest{Data: "audio", RequestId: &aiserverv1.BidiRequestId{RequestId: client.RequestID}})
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		})
	})

	Describe("request shape", func() {
		BeforeEach(func() { startEnv() })

		It("refuses an append without a request id", func() {
			bare := cursortest.NewClient(env.URL, env.HTTP1, "")
			Expect(bare.SendAt(ctx, 0, run)).To(HaveConnectCode(connect.CodeInvalidArgument))
		})

		It("refuses only one of the two subagent parent headers", func() {
			client.Header.Set("X-Parent-Request-Id", "parent")
			Expect(client.SendAt(ctx, 0, run)).To(HaveConnectCode(connect.CodeInvalidArgument))
		})

		It("hands both subagent parent headers to the turn", func() {
			client.Header.Set("X-Parent-Request-Id", "parent")
			client.Header.Set("X-Parent-Agent-Tool-Call-Id", "call-7")
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1))
			Expect(handler.Turns()[0].Parent).To(Equal(transport.Parent{RequestID: "parent", ToolCallID: "call-7"}))
		})

		It("accepts a gzip, enveloped body", func() {
			data, err := proto.Marshal(run)
			Expect(err).NotTo(HaveOccurred())
			body, err := proto.Marshal(&aiserverv1.BidiAppendRequest{Data: hex.EncodeToString(data), RequestId: &aiserverv1.BidiRequestId{RequestId: client.RequestID}})
			Expect(err).NotTo(HaveOccurred())
			resp := postProto(env.HTTP1, env.URL+"/aiserver.v1.BidiService/BidiAppend", frame.Encode(0, body), true)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/proto"))
			Eventually(handler.Turns).Should(HaveLen(1))
		})

		It("refuses a body beyond the frame size limit with resource_exhausted", func() {
			opts.MaxFrameSize = 1024
			env.Close()
			startEnv()
			big := cursortest.RunRequest("conv-1", "byok-model", string(make([]byte, 4096)))
			Expect(client.SendAt(ctx, 0, big)).To(HaveConnectCode(connect.CodeResourceExhausted))
			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
		})

		It("answers garbage with a Connect error and keeps serving", func() {
			resp := postProto(env.HTTP1, env.URL+"/aiserver.v1.BidiService/BidiAppend", []byte{0xff, 0xff, 0xff, 0x01}, false)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))

			Expect(client.SendAt(ctx, 0, run)).To(Succeed())
			Eventually(handler.Turns).Should(HaveLen(1))
		})
	})
})

var _ = Describe("BidiAppend's answer", func() {
	It("goes uncompressed to a client that accepts gzip: it is empty", func() {
		env := cursortest.Serve(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{Transport: cursortest.FastTimings()})
		DeferCleanup(env.Close)
		msg, err := proto.Marshal(cursortest.RunRequest("conv-1", "byok-model", "hello"))
		Expect(err).NotTo(HaveOccurred())
		body, err := proto.Marshal(&aiserverv1.BidiAppendRequest{
			Data: hex.EncodeToString(msg), RequestId: &aiserverv1.BidiRequestId{RequestId: newRequestID()}, AppendSeqno: 0,
		})
		Expect(err).NotTo(HaveOccurred())
		req, err := http.NewRequest(http.MethodPost, env.URL+"/aiserver.v1.BidiService/BidiAppend", bytes.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/proto")
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: the client does not unzip it then
		resp, err := env.HTTP1.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Encoding")).To(BeEmpty())
	})
})
