package cursor_test

import (
	"context"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/types/known/structpb"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// The replay of a stream is bounded (transport.Config.MaxReplayBytes,
// ReplayAfterEnd): within the bound a reconnecting RunSSE gets every
// frame from the start; beyond it the frames already read are released and
// a RunSSE that attaches later ends at once with unavailable
// (transport.ErrReplayLost), so the client resumes from its checkpoint.
var _ = Describe("RunSSE replay bound", func() {
	var (
		ctx     context.Context
		opts    cursor.Options
		script  cursortest.Script
		handler *cursortest.ScriptedRunHandler
		env     *cursortest.Env
		client  *cursortest.Client
		run     = cursortest.RunRequest("conv-1", "byok-model", "hello")
	)

	// texts are n deltas of 2 KiB each: each one a frame of its own in
	// the log, so what it holds follows what was released.
	texts := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat(string(rune('a'+i%26)), 2<<10)
		}
		return out
	}
	// sendThenWait sends "ready" and waits for label 98 (the spec's
	// subscriber is attached then), sends the texts, then waits for label
	// 99 before the last one, so the turn is still running while the spec
	// looks.
	sendThenWait := func(sent []string) cursortest.Script {
		return func(ctx context.Context, turn *transport.Turn) error {
			if err := turn.Output.Send(cursortest.TextDelta("ready")); err != nil {
				return err
			}
			if err := waitForLabel(ctx, turn, 98); err != nil {
				return err
			}
			for _, t := range sent[:len(sent)-1] {
				if err := turn.Output.Send(cursortest.TextDelta(t)); err != nil {
					return err
				}
			}
			if err := waitForLabel(ctx, turn, 99); err != nil {
				return err
			}
			return turn.Output.Send(cursortest.TextDelta(sent[len(sent)-1]))
		}
	}

	BeforeEach(func() {
		ctx = context.Background()
		opts = cursor.Options{Transport: cursortest.FastTimings()}
		opts.Transport.OrphanGrace = 10 * time.Second
		opts.Transport.RouteWait = 100 * time.Millisecond
		opts.Transport.Retain = time.Minute
	})

	JustBeforeEach(func() {
		handler = cursortest.NewScriptedRunHandler(script)
		env = cursortest.Serve(handler, opts)
		DeferCleanup(env.Close)
		client = env.Client(newRequestID())
	})

	subscribe := func() *cursortest.Stream { return subscribed(ctx, client) }

	Context("when a turn sends less than the bound", func() {
		sent := texts(20) // 40 KiB
		BeforeEach(func() {
			opts.Transport.MaxReplayBytes = 1 << 20
			script = sendThenWait(sent)
		})

		It("replays every frame to a reconnecting RunSSE, and holds them meanwhile", func() {
			first := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(first.Texts).Should(Equal([]string{"ready"}))
			Expect(client.Send(ctx, label(98))).To(Succeed())
			Eventually(func() int { return len(first.Texts()) }).Should(Equal(20))
			first.Close()
			Expect(env.Server.Stats().ReplayBytes).To(BeNumerically(">=", 19*2<<10))

			second := subscribe()
			Expect(client.Send(ctx, label(99))).To(Succeed())
			Eventually(second.Done()).Should(BeClosed())
			Expect(second.Texts()).To(Equal(append([]string{"ready"}, sent...)))
			Expect(second.EndError()).To(BeNil())
		})
	})

	Context("when a turn sends more than the bound", func() {
		sent := texts(200) // 400 KiB
		BeforeEach(func() {
			opts.Transport.MaxReplayBytes = 64 << 10
			script = sendThenWait(sent)
		})

		It("releases what its subscriber read, and a later RunSSE ends with unavailable at once", func() {
			first := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(first.Texts).Should(Equal([]string{"ready"}))
			Expect(client.Send(ctx, label(98))).To(Succeed())
			Eventually(func() int { return len(first.Texts()) }).Should(Equal(200))
			// Read frames go in batches while the subscriber is there...
			Eventually(func() int64 { return env.Server.Stats().ReplayBytes }).Should(BeNumerically("<", 200<<10))
			first.Close()
			// ...and all of them once no connected subscriber needs them.
			Eventually(func() int64 { return env.Server.Stats().ReplayBytes }).Should(BeZero())

			second := subscribe()
			Eventually(second.Done()).Should(BeClosed())
			Expect(second.Texts()).To(BeEmpty())
			Expect(second.EndError()).To(HaveConnectCode(connect.CodeUnavailable))
			Expect(second.EndError().Message()).To(Equal(transport.ErrReplayLost.Error()))
		})

		It("lets the first subscriber read the whole stream live", func() {
			first := subscribe()
			Expect(client.Send(ctx, run)).To(Succeed())
			Eventually(first.Texts).Should(Equal([]string{"ready"}))
			Expect(client.Send(ctx, label(98))).To(Succeed())
			Eventually(func() int { return len(first.Texts()) }).Should(Equal(200))
			Expect(client.Send(ctx, label(99))).To(Succeed())
			Eventually(first.Done()).Should(BeClosed())
			Expect(first.Texts()).To(Equal(append([]string{"ready"}, sent...)))
			Expect(first.EndError()).To(BeNil())
		})
	})

	Context("after the stream ended and was read to its end", func() {
		sent := texts(10)
		BeforeEach(func() {
			script = cursortest.Reply(sent...)
		})

		Context("within ReplayAfterEnd", func() {
			BeforeEach(func() { opts.Transport.ReplayAfterEnd = time.Hour })

			It("keeps the replay for a RunSSE that comes back", func() {
				first := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(first.Done()).Should(BeClosed())
				first.Close()
				Expect(env.Server.Stats().ReplayBytes).To(BeNumerically(">=", 10*2<<10))

				again := subscribe()
				Eventually(again.Done()).Should(BeClosed())
				Expect(again.Texts()).To(Equal(sent))
				Expect(again.EndError()).To(BeNil())
			})
		})

		Context("after ReplayAfterEnd", func() {
			BeforeEach(func() { opts.Transport.ReplayAfterEnd = time.Millisecond })

			It("releases the replay, and a RunSSE that comes back ends with unavailable", func() {
				first := subscribe()
				Expect(client.Send(ctx, run)).To(Succeed())
				Eventually(first.Done()).Should(BeClosed())
				Expect(first.Texts()).To(Equal(sent))
				first.Close()
				Eventually(func() int64 { return env.Server.Stats().ReplayBytes }).Should(BeZero())
				Expect(env.Server.Stats().Transports).To(Equal(1)) // still retained, without its frames

				again := subscribe()
				Eventually(again.Done()).Should(BeClosed())
				Expect(again.Texts()).To(BeEmpty())
				Expect(again.EndError()).To(HaveConnectCode(connect.CodeUnavailable))
				Expect(again.EndError().Message()).To(Equal(transport.ErrReplayLost.Error()))
			})
		})
	})
})

// Turns whose run requests carry the same request context (the same
// bytes) share one decoded RequestContext while they run.
var _ = Describe("A run request's request context", func() {
	It("is one decoded value for the live turns that sent the same bytes, another for other bytes", func() {
		handler := cursortest.NewScriptedRunHandler(func(ctx context.Context, turn *transport.Turn) error {
			<-ctx.Done() // the turns stay live while the spec looks
			return nil
		})
		opts := cursor.Options{Transport: cursortest.FastTimings()}
		opts.Transport.OrphanGrace = time.Minute
		env := cursortest.Serve(handler, opts)
		DeferCleanup(env.Close)
		ctx := context.Background()
		withContext := func(conv, rule string) *agentv1.AgentClientMessage {
			m := cursortest.RunRequest(conv, "byok-model", "hello from "+conv)
			// A tool's input schema is a map: the client writes its
			// entries in the same order every turn.
			schema, err := structpb.NewStruct(map[string]any{"type": "object", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7})
			Expect(err).NotTo(HaveOccurred())
			m.GetRunRequest().GetAction().GetUserMessageAction().RequestContext = &agentv1.RequestContext{
				Rules: []*agentv1.CursorRule{{FullPath: "/w/.cursor/rules/a.mdc", Content: rule}},
				Tools: []*agentv1.McpToolDefinition{{Name: "linear-search", ToolName: "search", InputSchema: structpb.NewStructValue(schema)}},
			}
			return m
		}
		Expect(env.Client(newRequestID()).Send(ctx, withContext("conv-1", "tabs, not spaces"))).To(Succeed())
		Expect(env.Client(newRequestID()).Send(ctx, withContext("conv-2", "tabs, not spaces"))).To(Succeed())
		Expect(env.Client(newRequestID()).Send(ctx, withContext("conv-3", "spaces, not tabs"))).To(Succeed())
		Eventually(func() int { return len(handler.Turns()) }).Should(Equal(3))

		byConv := map[string]*agentv1.RequestContext{}
		for _, t := range handler.Turns() {
			byConv[t.Request.GetConversationId()] = t.Request.GetAction().GetUserMessageAction().GetRequestContext()
		}
		Expect(byConv["conv-1"]).To(BeIdenticalTo(byConv["conv-2"]))
		Expect(byConv["conv-3"]).NotTo(BeIdenticalTo(byConv["conv-1"]))
		Expect(byConv["conv-3"].GetRules()[0].GetContent()).To(Equal("spaces, not tabs"))
		Expect(env.Server.Stats().SharedContexts).To(Equal(2))
	})
})
