package run_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

var _ = Describe("Engine.Start", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	When("the model answers with text only", func() {
		var (
			t  *runtest.Transport
			o  run.Outcome
			hd *run.Handle
		)
		BeforeEach(func() {
			h.enqueue(text("Hello there."))
			t = &runtest.Transport{}
			hd = h.start(h.prepared(userText("e1", "hi")), t)
			o = finish(hd)
		})

		It("completes and stores the user message and the answer", func() {
			Expect(o.Status).To(Equal(run.Completed))
			Expect(ids(h.history())).To(Equal([]string{"runtime:e1", conversation.AssistantID(hd.RunID(), 0)}))
			Expect(h.history()[1].Text()).To(Equal("Hello there."))
		})

		It("streams the text and commits the initial messages and the final turn behind barriers", func() {
			Eventually(t.Done()).Should(BeClosed())
			Expect(t.Text()).To(Equal("Hello there."))
			commits := eventsOf[run.MessagesCommitted](t.Events())
			Expect(commits).To(HaveLen(2))
			Expect(commits[0].Cause.Kind).To(Equal(run.CauseInitialMessages))
			Expect(commits[1].Cause.Kind).To(Equal(run.CauseFinalTurn))
			Expect(commits[0].Barrier).NotTo(BeNil())
			Expect(commits[1].Barrier).NotTo(BeNil())
		})

		It("accumulates the usage and records one completed call per attempt", func() {
			Expect(o.Usage.Input).To(Equal(int64(100)))
			Expect(o.Usage.Output).To(Equal(int64(10)))
			rec, ok := h.b.record(conversation.ProviderCallID(hd.RunID(), 0, 0))
			Expect(ok).To(BeTrue())
			Expect(rec.Status.String()).To(Equal("completed"))
			Expect(rec.RunID).To(Equal(hd.RunID()))
			Expect(rec.ConversationID).To(Equal(h.conv))
		})

		It("stores the run as completed with its usage", func() {
			stored, err := h.b.runs.Run(context.Background(), hd.RunID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Status).To(Equal(ports.RunCompleted))
			Expect(stored.Usage.Output).To(Equal(int64(10)))
		})

		It("ends the event stream with Ended and closes it", func() {
			Eventually(t.Done()).Should(BeClosed())
			evs := t.Events()
			Expect(evs[len(evs)-1]).To(BeAssignableToTypeOf(run.Ended{}))
		})
	})

	When("the same initial messages are started again by a retried run", func() {
		It("appends them once and reuses the stored checkpoint", func() {
			h.enqueue(text("one"), text("two"))
			msg := userText("e1", "hi")
			finish(h.start(h.prepared(msg), &runtest.Transport{}))
			first := ids(h.history())[0]
			p := h.prepared(msg)
			root, err := conversation.Root(h.conv)
			Expect(err).NotTo(HaveOccurred())
			p.BaseCheckpointID = root.ID()
			Expect(finish(h.start(p, &runtest.Transport{})).Status).To(Equal(run.Completed))
			hist := ids(h.history())
			Expect(hist).To(HaveLen(2))
			Expect(hist[0]).To(Equal(first))
		})
	})

	When("the model asks for one Read", func() {
		var (
			t  *runtest.Transport
			hd *run.Handle
		)
		BeforeEach(func() {
			h.enqueue(tools(call("call-1", "Read", `{"path":"a.go"}`)), text("Done."))
			t = &runtest.Transport{OnEvent: answer(func(llm.ToolCall) string { return "package a" })}
			hd = h.start(h.prepared(userText("e1", "read a.go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed))
		})

		It("waits for the client result, then calls the provider exactly once more", func() {
			Expect(h.provider.Calls()).To(HaveLen(2))
			stored, err := h.b.runs.Run(context.Background(), hd.RunID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.ProviderCallIndex).To(Equal(1))
		})

		It("stores the result immediately after its assistant tool call", func() {
			round := conversation.ToolRoundID(hd.RunID(), 0)
			Expect(ids(h.history())).To(Equal([]string{
				"runtime:e1",
				conversation.ToolCallPartID(round, "call-1"),
				conversation.ToolResultID(round, "call-1"),
				conversation.AssistantID(hd.RunID(), 1),
			}))
		})

		It("sums the usage of both cycles into the run", func() {
			stored, err := h.b.runs.Run(context.Background(), hd.RunID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Usage.Input).To(Equal(int64(200)))
			Expect(stored.Usage.Output).To(Equal(int64(20)))
		})

		It("sends the call and its result in the second request", func() {
			req := h.provider.Calls()[1].Request
			Expect(texts(req.Messages)).To(Equal([]string{"user: read a.go", "assistant: Read", "tool: package a"}))
		})

		It("announces the round, then dispatches it, then commits the result behind a barrier", func() {
			Eventually(t.Done()).Should(BeClosed())
			var kinds []string
			for _, ev := range t.Events() {
				switch x := ev.(type) {
				case run.ExecuteToolRound:
					kinds = append(kinds, "execute")
				case run.MessagesCommitted:
					kinds = append(kinds, x.Cause.Kind.String())
					if x.Cause.Kind == run.CauseToolResult {
						Expect(x.Barrier).NotTo(BeNil(), "the settling result waits for publication")
						Expect(x.RoundVersion).To(Equal(1))
					}
				}
			}
			Expect(kinds).To(Equal([]string{"initial_messages", "tool_round_started", "execute", "tool_result", "final_turn"}))
		})
	})

	DescribeTable("tool calls the model sends",
		func(c providertest.Call, wantName, wantArgs, wantError string) {
			h.enqueue(tools(c), text("ok"))
			var executed []llm.ToolCall
			t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
				if x, ok := ev.(run.ExecuteToolRound); ok {
					executed = append(executed, x.Calls...)
				}
				answer(func(llm.ToolCall) string { return "r" })(hd, ev)
			}}
			hd := h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed), "a malformed call never fails the run")
			Expect(h.provider.Calls()).To(HaveLen(2), "the run continues to a second provider call")
			part := h.history()[1]
			a, _ := part.Assistant()
			Expect(a.Calls[0].Name).To(Equal(wantName))
			Expect(string(a.Calls[0].Arguments)).To(Equal(wantArgs))
			res, _ := h.history()[2].ToolResult()
			if wantError == "" {
				Expect(executed).To(HaveLen(1))
				Expect(res.IsError).To(BeFalse())
			} else {
				Expect(executed).To(BeEmpty(), "an invalid call is not dispatched")
				Expect(res.IsError).To(BeTrue())
				Expect(res.Content).To(ContainSubstring(wantError))
			}
		},
		Entry("provider tool names are normalised when received",
			call("call-1", "multi_tool_use.parallel", `{}`), "multi_tool_use_parallel", `{}`, ""),
		Entry("malformed tool JSON is kept as a tool validation error",
			call("call-1", "Read", `{"path":`), "Read", `{}`, "not valid JSON"),
		Entry("a tool call with empty arguments does not fail the run",
			call("call-1", "Read"), "Read", `{}`, ""),
		Entry("arguments that are not an object complete as a tool error",
			call("call-1", "Shell", `[1]`), "Shell", `{}`, "must be a JSON object"),
	)

	When("the provider reuses a call id in two rounds", func() {
		It("sends both rounds to the client and completes with a third call", func() {
			h.enqueue(tools(call("call-1", "Read", `{"path":"a"}`)), tools(call("call-1", "Read", `{"path":"b"}`)), text("done"))
			rounds := 0
			t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
				if _, ok := ev.(run.ExecuteToolRound); ok {
					rounds++
				}
				answer(func(c llm.ToolCall) string { return string(c.Arguments) })(hd, ev)
			}}
			Expect(finish(h.start(h.prepared(userText("e1", "go")), t)).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			Expect(rounds).To(Equal(2))
			Expect(h.provider.Calls()).To(HaveLen(3))
		})
	})

	When("the client answers parallel calls out of order, with a duplicate and an unknown id", func() {
		var hd *run.Handle
		BeforeEach(func() {
			h.enqueue(tools(call("call-a", "Read", `{"path":"a"}`), call("call-b", "Read", `{"path":"b"}`)), text("done"))
			t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
				if _, ok := ev.(run.ExecuteToolRound); ok {
					hd.ToolResult(llm.ToolResult{CallID: "call-b", Content: "B"})
					hd.ToolResult(llm.ToolResult{CallID: "call-b", Content: "B again"})
					hd.ToolResult(llm.ToolResult{CallID: "bridge-404", Content: "?"})
					hd.ToolResult(llm.ToolResult{CallID: "call-a", Content: "A"})
				}
			}}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed))
		})

		It("stores the results in completion order, ignoring the duplicate and the unknown id", func() {
			round := conversation.ToolRoundID(hd.RunID(), 0)
			Expect(ids(h.history())[1:5]).To(Equal([]string{
				conversation.ToolCallPartID(round, "call-b"), conversation.ToolResultID(round, "call-b"),
				conversation.ToolCallPartID(round, "call-a"), conversation.ToolResultID(round, "call-a"),
			}))
		})

		It("sends the calls in the model's order, then the results in completion order", func() {
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{
				"user: go", "assistant: Read,Read", "tool: B", "tool: A"}))
			a := h.provider.Calls()[1].Request.Messages[1].Assistant
			Expect(a.Calls[0].CallID).To(Equal("call-a"))
		})
	})

	When("a turn ended and the user sends another message", func() {
		It("starts the next turn with the previous request's history as its prefix", func() {
			h.enqueue(tools(call("call-1", "Read", `{}`)), text("first"), text("second"))
			t := &runtest.Transport{OnEvent: answer(func(llm.ToolCall) string { return "x" })}
			finish(h.start(h.prepared(userText("e1", "one")), t))
			finish(h.start(h.prepared(userText("e2", "two")), &runtest.Transport{}))
			calls := h.provider.Calls()
			Expect(calls).To(HaveLen(3))
			for i := 1; i < len(calls); i++ {
				Expect(prefix.IsStablePrefix(calls[i-1].Request, calls[i].Request).Err()).To(Succeed())
			}
			Expect(texts(calls[2].Request.Messages)).To(Equal([]string{
				"user: one", "assistant: Read", "tool: x", "assistant: first", "user: two"}))
		})
	})

	When("the user edits the first message (a base older than the head)", func() {
		It("branches from the base, keeps the old branch and sends only the new branch", func() {
			h.enqueue(text("answer one"), text("answer two"))
			first := h.start(h.prepared(userText("e1", "original")), &runtest.Transport{})
			finish(first)
			oldHead, err := h.b.convs.Head(context.Background(), h.conv)
			Expect(err).NotTo(HaveOccurred())
			root, err := conversation.Root(h.conv)
			Expect(err).NotTo(HaveOccurred())
			p := h.prepared(userText("e1-edited", "edited"))
			p.BaseCheckpointID = root.ID()
			Expect(finish(h.start(p, &runtest.Transport{})).Status).To(Equal(run.Completed))
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{"user: edited"}))
			_, old, err := h.b.convs.Load(context.Background(), oldHead.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(ids(old)).To(Equal([]string{"runtime:e1", conversation.AssistantID(first.RunID(), 0)}))
		})
	})

	When("a resumed run carries tool calls the client still holds", func() {
		It("runs them as the round \"<run>:round:resume\" before calling the model", func() {
			h.enqueue(text("hello"), text("after the resumed round"))
			finish(h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{}))
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionResume, PendingCalls: &llm.Assistant{Text: "reading",
				Calls: []llm.ToolCall{{Index: 0, CallID: "held-1", Name: "Read", Arguments: []byte(`{"path":"x"}`)}}}}
			hd := h.start(p, &runtest.Transport{OnEvent: answerCalls})
			Expect(finish(hd).Status).To(Equal(run.Completed))
			round := conversation.ResumedToolRoundID(hd.RunID())
			Expect(ids(h.history())[2:4]).To(Equal([]string{
				conversation.ToolCallPartID(round, "held-1"), conversation.ToolResultID(round, "held-1")}))
			Expect(h.provider.Calls()).To(HaveLen(2))
		})
	})

	When("a resume finds no message of the conversation, in the store or the client's checkpoint", func() {
		It("fails as a client error asking for the message again, without calling the model", func() {
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionResume}
			o := finish(h.start(p, &runtest.Transport{}))
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryClient))
			Expect(o.Failure.Message).To(ContainSubstring("send the message again"))
			Expect(h.provider.Calls()).To(BeEmpty())
		})
	})

	When("a tool result is larger than the provider limit", func() {
		It("bounds it only in the provider request and stores it unchanged", func() {
			big := strings.Repeat("0123456789abcdef", 1<<16)
			h.enqueue(tools(call("call-1", "Read", `{}`)), text("ok"))
			t := &runtest.Transport{OnEvent: answer(func(llm.ToolCall) string { return big })}
			finish(h.start(h.prepared(userText("e1", "go")), t))
			sent := h.provider.Calls()[1].Request.Messages[2].ToolResult.Content
			Expect(len(sent)).To(BeNumerically("<=", 64<<10))
			Expect(sent).To(ContainSubstring("Re-run the tool with a narrower scope"))
			stored, _ := h.history()[2].ToolResult()
			Expect(stored.Content).To(Equal(big))
		})
	})

	When("a tool result references an image blob", func() {
		It("loads the bytes only into the provider request", func() {
			png := []byte("\x89PNG fake image")
			id := ports.BlobID(png)
			Expect(h.b.blobs.Put(context.Background(), id, png)).To(Succeed())
			h.enqueue(tools(call("call-1", "Read", `{"path":"a.png"}`)), text("a cat"))
			t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
				if x, ok := ev.(run.ExecuteToolRound); ok {
					hd.ToolResult(llm.ToolResult{CallID: x.Calls[0].CallID, Content: "image",
						Image: &llm.Image{MIMEType: "image/png", BlobID: id, Path: "a.png"}})
				}
			}}
			finish(h.start(h.prepared(userText("e1", "look")), t))
			sent := h.provider.Calls()[1].Request.Messages[2].ToolResult.Image
			Expect(sent.Data).To(Equal(png))
			stored, _ := h.history()[2].ToolResult()
			Expect(stored.Image.Data).To(BeEmpty())
			Expect(stored.Image.BlobID).To(Equal(id))
		})
	})
})
