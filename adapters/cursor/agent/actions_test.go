package agent_test

import (
	"bytes"
	"slices"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// stallAfter is a reply that streams t up to the first event containing
// marker and then stalls, like a provider in the middle of an answer.
func stallAfter(kind llm.ProviderKind, t providertest.Turn, marker string) providertest.Reply {
	steps := providertest.Events(sse(kind, t))
	i := slices.IndexFunc(steps, func(s providertest.Step) bool { return bytes.Contains(s.Data, []byte(marker)) })
	Expect(i).To(BeNumerically(">=", 0))
	return providertest.Reply{Steps: append(steps[:i+1:i+1], providertest.Step{Stall: true})}
}

// never holds an exec until it is aborted.
func never(*agentv1.ExecServerMessage) <-chan struct{} { return make(chan struct{}) }

var _ = Describe("Handler serving conversation actions", func() {
	f := useFixture()

	When("the user cancels while the model streams", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			f.h.provider.Enqueue(stallAfter(mainKind, providertest.Turn{ID: "r1", Text: []string{"Partial ", "answer"}}, "Partial"))
			st = open(f.c, cursortest.RunRequest("conv-cancel", "kg-model", "Tell me"))
			Eventually(st.Texts).Should(Equal([]string{"Partial "}))
			Expect(f.c.Send(ctx(), cursortest.Cancel("user pressed stop"))).To(Succeed())
			finished(st)
		})

		It("ends the stream as cancelled and closes the provider call", func() {
			Expect(st.EndError()).NotTo(BeNil())
			Expect(st.EndError().Code()).To(Equal(connect.CodeCanceled))
			Eventually(f.h.provider.Gone()).Should(Receive())
		})

		It("keeps what was streamed so the next turn sees it", func() {
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Continuing."}})
			next := finished(open(f.c.WithRequestID("req-2"), cursortest.RunRequest("conv-cancel", "kg-model", "Go on")))
			Expect(next.EndError()).To(BeNil())
			Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring("Partial "))
		})

		It("keeps the partial answer in the cancelled turn, so a reloaded chat shows what the model sees", func() {
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Continuing."}})
			next := finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-cancel", "kg-model",
				cursortest.UserMessageAction("m2", "Go on"), f.c.Checkpoint())))
			Expect(next.EndError()).To(BeNil())
			chat, err := f.c.Chat(lastCheckpoint(next))
			Expect(err).NotTo(HaveOccurred())
			Expect(chat).To(HaveLen(2))
			Expect(chat[0].Texts()).To(Equal([]string{"Partial "}))
			Expect(chat[1].Texts()).To(Equal([]string{"Continuing."}))
		})
	})

	When("the user cancels while a tool runs on the client", func() {
		It("aborts the exec before the cancelled end of the stream", func() {
			f.ws.Hold = never
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_sh", "Shell", `{"command":"sleep 5"}`)}})
			st := open(f.c, cursortest.RunRequest("conv-cancel-tool", "kg-model", "Run it"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Cancel("stop"))).To(Succeed())
			finished(st)
			Expect(st.EndError().Code()).To(Equal(connect.CodeCanceled))
			Expect(cursortest.Kinds(st.Content())).To(ContainElement("abort"))
			Expect(f.ws.Aborted()).To(ConsistOf(f.ws.Execs()[0].GetId()))
		})
	})

	It("keeps a cancelled round's text and completed calls in the turn, without the call that never completed", func() {
		f.ws.Hold = func(ex *agentv1.ExecServerMessage) <-chan struct{} {
			if ex.GetShellStreamArgs() != nil {
				return make(chan struct{})
			}
			return nil
		}
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Reading first."}, Calls: []providertest.Call{
			call("c_read", "Read", `{"path":"a.txt"}`), call("c_sh", "Shell", `{"command":"sleep 5"}`)}})
		st := open(f.c, cursortest.RunRequest("conv-cancel-round", "kg-model", "Read, then run"))
		Eventually(func() []string { return completedOrder(st) }).Should(Equal([]string{"c_read"}))
		Expect(f.c.Send(ctx(), cursortest.Cancel("stop"))).To(Succeed())
		Expect(finished(st).EndError().Code()).To(Equal(connect.CodeCanceled))

		f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Next."}})
		next := finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-cancel-round", "kg-model",
			cursortest.UserMessageAction("m2", "Go on"), f.c.Checkpoint())))
		Expect(next.EndError()).To(BeNil())
		body := string(f.h.provider.Requests()[1].Body)
		Expect(body).To(And(ContainSubstring("Reading first."), ContainSubstring("c_read"), Not(ContainSubstring("sleep 5"))))
		cp := lastCheckpoint(next)
		Expect(cp.GetPendingToolCalls()).To(BeEmpty())
		chat, err := f.c.Chat(cp)
		Expect(err).NotTo(HaveOccurred())
		Expect(chat).To(HaveLen(2))
		Expect(chat[0].Texts()).To(Equal([]string{"Reading first."}))
		Expect(chat[0].Cards()).To(Equal([]string{"c_read"}))
		Expect(cursortest.Done(chat[0].Steps[1].GetToolCall())).To(BeTrue())
	})

	When("the user queues a follow-up while a tool runs", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			f.ws.Hold = never
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Looked at b instead."}},
			)
			st = open(f.c, cursortest.RunRequest("conv-inject", "kg-model", "Read a"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Inject("inj-1", "req-1", "check b instead"))).To(Succeed())
			finished(st)
		})

		It("interrupts the round, delivers the message and lets the model answer it", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(st.Texts()).To(Equal([]string{"Looked at b instead."}))
			body := string(f.h.provider.Requests()[1].Body)
			Expect(body).To(ContainSubstring("check b instead"))
			Expect(body).To(ContainSubstring("interrupted by a newer user message"))
		})

		It("reports queued, then the abort, then delivered and the appended message", func() {
			var seq []string
			for _, m := range st.Content() {
				u := m.GetInteractionUpdate()
				switch {
				case u.GetContextInjectionState().GetState().GetQueued() != nil:
					seq = append(seq, "queued")
				case u.GetContextInjectionState().GetState().GetDelivered() != nil:
					seq = append(seq, "delivered")
				case u.GetUserMessageAppended() != nil:
					seq = append(seq, "appended:"+u.GetUserMessageAppended().GetUserMessage().GetText())
				case m.GetExecServerControlMessage().GetAbort() != nil:
					seq = append(seq, "abort")
				case u.GetTextDelta() != nil:
					seq = append(seq, "text")
				}
			}
			Expect(seq).To(Equal([]string{"queued", "abort", "delivered", "appended:check b instead", "text"}))
		})
	})

	It("rejects a queued follow-up meant for another run", func() {
		f.ws.Hold = never
		f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}})
		st := open(f.c, cursortest.RunRequest("conv-reject", "kg-model", "Read a"))
		Eventually(f.ws.Execs).Should(HaveLen(1))
		Expect(f.c.Send(ctx(), cursortest.Inject("inj-9", "some-other-run", "late"))).To(Succeed())
		Eventually(func() []string { return cursortest.Kinds(st.Content()) }).Should(ContainElement("injection"))
		var rejected *agentv1.ContextInjectionRejected
		for _, m := range st.Content() {
			if r := m.GetInteractionUpdate().GetContextInjectionState().GetState().GetRejected(); r != nil {
				rejected = r
			}
		}
		Expect(rejected).NotTo(BeNil())
		Expect(f.c.Send(ctx(), cursortest.Cancel("done"))).To(Succeed())
		finished(st)
	})

	It("compacts automatically before a call that would not fit, shows the summary and answers", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"A long answer."}, Usage: providertest.Usage{Input: 30000, Output: 10}})
		finished(open(f.c, cursortest.RunRequest("conv-auto", "kg-small", "Tell me everything")))
		f.h.reply(
			providertest.Turn{ID: "sum", Text: []string{"Earlier the user asked for everything."}},
			providertest.Turn{ID: "r2", Text: []string{"Short now."}},
		)
		st := finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-auto", "kg-small",
			cursortest.UserMessageAction("m2", "Go on"), f.c.Checkpoint())))
		Expect(st.EndError()).To(BeNil())
		ks := cursortest.Kinds(st.Content())
		Expect(ks).To(ContainElements("summary_started", "summary", "summary_completed"))
		Expect(indexOf(ks, "summary_completed")).To(BeNumerically("<", indexOf(ks, "text")))
		Expect(st.Texts()).To(Equal([]string{"Short now."}))
		Expect(string(f.h.provider.Requests()[2].Body)).To(ContainSubstring("Earlier the user asked for everything."))
	})

	When("the user summarizes the conversation", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Hello there."}})
			finished(open(f.c, cursortest.RunRequest("conv-sum", "kg-model", "Hi")))
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"The user ", "greeted the assistant."}})
			st = finished(open(f.c.WithRequestID("req-sum"), cursortest.Request("conv-sum", "kg-model", cursortest.SummarizeAction(), f.c.Checkpoint())))
		})

		It("streams the summary and ends with summary_completed, turn_ended and the compacted checkpoint three times", func() {
			Expect(st.EndError()).To(BeNil())
			ks := cursortest.Kinds(st.Content())
			Expect(ks[0]).To(Equal("summary_started"))
			Expect(ks).To(ContainElement("summary"))
			Expect(ks).NotTo(ContainElement("text"))
			Expect(ks[len(ks)-5:]).To(Equal([]string{"summary_completed", "turn_ended",
				"checkpoint:settled", "checkpoint:settled", "checkpoint:settled"}))
		})

		It("records the summary in the checkpoint and replaces the history", func() {
			cp := lastCheckpoint(st)
			Expect(cp.GetSelfSummaryCount()).To(BeEquivalentTo(1))
			data, ok := f.c.Blob(cp.GetSummary())
			Expect(ok).To(BeTrue())
			Expect(string(data)).To(ContainSubstring("greeted the assistant"))
			head, err := f.h.stores.Conversations.Head(ctx(), "conv-sum")
			Expect(err).NotTo(HaveOccurred())
			_, msgs, err := f.h.stores.Conversations.Load(ctx(), head.ID())
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Join(texts(msgs), "|")).To(ContainSubstring("greeted the assistant"))
			Expect(strings.Join(texts(msgs), "|")).NotTo(ContainSubstring("Hello there."))
		})

		It("sends no tools on the summary call", func() {
			Expect(string(f.h.provider.Requests()[1].Body)).NotTo(ContainSubstring(`"StrReplace"`))
		})
	})
})
