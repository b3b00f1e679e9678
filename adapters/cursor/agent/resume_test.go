package agent_test

import (
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("Handler across restarts, edits and model switches", func() {
	f := useFixture()

	When("the server restarts in the middle of a tool round", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			// The first shell is held until the spec ends: the server
			// restarts while it runs. The workspace reads Hold from its
			// exec goroutines, so Hold itself never changes.
			release := make(chan struct{})
			DeferCleanup(func() { close(release) })
			var held atomic.Bool
			f.ws.Hold = func(ex *agentv1.ExecServerMessage) <-chan struct{} {
				if ex.GetShellStreamArgs() != nil && held.CompareAndSwap(false, true) {
					return release
				}
				return nil
			}
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{
				call("c_read", "Read", `{"path":"a.txt"}`),
				call("c_shell", "Shell", `{"command":"echo resumed"}`),
			}})
			first := open(f.c, cursortest.RunRequest("conv-restart", "kg-model", "Read and run"))
			Eventually(func() []string { return completedOrder(first) }).Should(Equal([]string{"c_read"}))
			// The restart comes once the client holds the checkpoint with
			// c_read's finished card: the scenario is a crash while the
			// shell runs. (A crash between c_read's result and the
			// checkpoint that shows it is another window: the resumed turn
			// does not redraw a card whose call it does not run again.)
			Eventually(func() bool {
				chat, err := f.c.Chat(f.c.Checkpoint())
				if err != nil || len(chat) != 1 {
					return false
				}
				for _, s := range chat[0].Steps {
					if tc := s.GetToolCall(); tc != nil && tc.GetToolCallId() == "c_read" {
						return cursortest.Done(tc)
					}
				}
				return false
			}).Should(BeTrue())
			f.h.restart()
			f.c.Rebind(f.h.env.URL, f.h.env.HTTP1)
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Finished."}})
			st = finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-restart", "kg-model", cursortest.ResumeAction(), f.c.Checkpoint())))
		})

		It("runs only the call that had no result and finishes the turn", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(st.Texts()).To(Equal([]string{"Finished."}))
			var execs []string
			for _, m := range st.Content() {
				if ex := m.GetExecServerMessage(); ex != nil {
					execs = append(execs, ex.GetExecId())
				}
			}
			Expect(execs).To(Equal([]string{"c_shell"}))
		})

		It("continues the interrupted turn in the client's history instead of adding one", func() {
			cp := lastCheckpoint(st)
			Expect(cp.GetTurns()).To(HaveLen(1))
			data, ok := f.c.Blob(cp.GetTurns()[0])
			Expect(ok).To(BeTrue())
			var ts agentv1.ConversationTurnStructure
			Expect(proto.Unmarshal(data, &ts)).To(Succeed())
			Expect(ts.GetAgentConversationTurn().GetUserMessage()).NotTo(BeEmpty())
			var cards []string
			for _, id := range ts.GetAgentConversationTurn().GetSteps() {
				raw, ok := f.c.Blob(id)
				Expect(ok).To(BeTrue())
				var step agentv1.ConversationStep
				Expect(proto.Unmarshal(raw, &step)).To(Succeed())
				if tc := step.GetToolCall(); tc != nil {
					cards = append(cards, tc.GetToolCallId())
				}
			}
			Expect(cards).To(ContainElements("c_read", "c_shell"))
		})

		It("keeps one step per tool call: the resumed Shell's card is the one that completes, where the abandoned one was", func() {
			chat, err := f.c.Chat(lastCheckpoint(st))
			Expect(err).NotTo(HaveOccurred())
			Expect(chat).To(HaveLen(1))
			Expect(chat[0].Cards()).To(Equal([]string{"c_read", "c_shell"}))
			for _, s := range chat[0].Steps {
				if tc := s.GetToolCall(); tc != nil {
					Expect(cursortest.Done(tc)).To(BeTrue(), tc.GetToolCallId())
				}
			}
			Expect(chat[0].Steps[len(chat[0].Steps)-1].GetAssistantMessage().GetText()).To(Equal("Finished."))
		})

		It("does not repeat the finished model cycle and gives the model both results", func() {
			reqs := f.h.provider.Requests()
			Expect(reqs).To(HaveLen(2))
			Expect(string(reqs[1].Body)).To(And(ContainSubstring("alpha"), ContainSubstring("resumed")))
		})
	})

	When("the user edits an earlier message", func() {
		BeforeEach(func() {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Answer one."}})
			finished(open(f.c, cursortest.Request("conv-edit", "kg-model", cursortest.UserMessageAction("m1", "first question"), nil)))
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Answer two."}})
			finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-edit", "kg-model", cursortest.UserMessageAction("m2", "second question"), f.c.Checkpoint())))
			f.h.reply(providertest.Turn{ID: "r3", Text: []string{"Answer one, edited."}})
			st := finished(open(f.c.WithRequestID("req-3"), cursortest.Request("conv-edit", "kg-model",
				cursortest.UserMessageAction("m1", "first question, edited"), &agentv1.ConversationStateStructure{})))
			Expect(st.EndError()).To(BeNil())
		})

		It("branches before the edited message: the model no longer sees what followed it", func() {
			body := string(f.h.provider.Requests()[2].Body)
			Expect(body).To(ContainSubstring("first question, edited"))
			Expect(body).NotTo(ContainSubstring("second question"))
			Expect(body).NotTo(ContainSubstring("Answer two."))
		})

		It("continues on the new branch", func() {
			f.h.reply(providertest.Turn{ID: "r4", Text: []string{"Four."}})
			st := finished(open(f.c.WithRequestID("req-4"), cursortest.Request("conv-edit", "kg-model",
				cursortest.UserMessageAction("m4", "fourth"), f.c.Checkpoint())))
			Expect(st.EndError()).To(BeNil())
			body := string(f.h.provider.Requests()[3].Body)
			Expect(body).To(And(ContainSubstring("first question, edited"), ContainSubstring("Answer one, edited.")))
			Expect(body).NotTo(ContainSubstring("second question"))
		})
	})

	It("keeps the history when the user switches models mid-conversation", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"From the first model."}})
		finished(open(f.c, cursortest.RunRequest("conv-switch", "kg-model", "Hello")))
		f.h.reply(providertest.Turn{ID: "r2", Text: []string{"From the second model."}})
		st := finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-switch", "kg-other",
			cursortest.UserMessageAction("m2", "And now?"), f.c.Checkpoint())))
		Expect(st.EndError()).To(BeNil())
		body := string(f.h.provider.Requests()[1].Body)
		Expect(body).To(ContainSubstring("upstream-kg-other"))
		Expect(body).To(And(ContainSubstring("Hello"), ContainSubstring("From the first model.")))
	})
})
