package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// wipe stops the server and brings it back on an empty database: a store
// that lost everything (wiped, or a replica that never had it).
func (h *harness) wipe() {
	h.close()
	h.dir = GinkgoT().TempDir()
	h.start()
}

// snapshot copies the stopped server's database and restarts it; restore
// brings the server back on that copy: a database restored from a backup
// older than the conversation's end.
func (h *harness) snapshot() (restore func()) {
	h.close()
	backup := GinkgoT().TempDir()
	entries, err := os.ReadDir(h.dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(h.dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(backup, e.Name()), data, 0o600)).To(Succeed())
	}
	h.start()
	return func() {
		h.close()
		h.dir = backup
		h.start()
	}
}

// pendingOf lists the call ids of a checkpoint's pending entry.
func pendingOf(cp *agentv1.ConversationStateStructure) []string {
	var ids []string
	for _, e := range cp.GetPendingToolCalls() {
		for _, id := range []string{"c_read", "c_shell", "c_ls"} {
			if strings.Contains(e, `"toolCallId":"`+id+`"`) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// execIDs lists the exec ids (the calls) a stream asked the client to run.
func execIDs(st *cursortest.Stream) []string {
	var ids []string
	for _, m := range st.Content() {
		if ex := m.GetExecServerMessage(); ex != nil {
			ids = append(ids, ex.GetExecId())
		}
	}
	return ids
}

var _ = Describe("Handler resuming from the client's checkpoint alone, when the server's store lost the conversation", func() {
	f := useFixture()

	// holdShell keeps the first shell exec unanswered until the spec ends:
	// the store is lost while it runs.
	holdShell := func() {
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		var held atomic.Bool
		f.ws.Hold = func(ex *agentv1.ExecServerMessage) <-chan struct{} {
			if ex.GetShellStreamArgs() != nil && held.CompareAndSwap(false, true) {
				return release
			}
			return nil
		}
	}
	// resume sends the client's latest checkpoint back with a ResumeAction
	// to the server as it is now.
	resume := func(conv string, state *agentv1.ConversationStateStructure) *cursortest.Stream {
		f.c.Rebind(f.h.env.URL, f.h.env.HTTP1)
		return finished(open(f.c.WithRequestID("req-resume"), cursortest.Request(conv, "kg-model", cursortest.ResumeAction(), state)))
	}

	When("the store is lost before the exec was answered", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			holdShell()
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Let me run it."}, Calls: []providertest.Call{
				call("c_shell", "Shell", `{"command":"echo resumed"}`)}})
			open(f.c, cursortest.RunRequest("conv-lost-1", "kg-model", "Run it"))
			Eventually(func() []string { return pendingOf(f.c.Checkpoint()) }).Should(Equal([]string{"c_shell"}))
			f.h.wipe()
			f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Finished."}})
			st = resume("conv-lost-1", f.c.Checkpoint())
		})

		It("runs the unanswered call again from the checkpoint's pending calls and finishes the turn", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(execIDs(st)).To(Equal([]string{"c_shell"}))
			Expect(st.Texts()).To(Equal([]string{"Finished."}))
		})

		It("does not call the model for the round again: its one call comes after the result, with the round as it was", func() {
			reqs := f.h.provider.Requests()
			Expect(reqs).To(HaveLen(2), "the first turn's call and the one after the resumed round")
			body := string(reqs[1].Body)
			Expect(body).To(And(ContainSubstring("Let me run it."), ContainSubstring("c_shell"), ContainSubstring("resumed"), ContainSubstring("Run it")))
		})

		It("shows the resumed Shell as the turn's one card for its call, completed after the round's text", func() {
			chat, err := f.c.Chat(lastCheckpoint(st))
			Expect(err).NotTo(HaveOccurred())
			Expect(chat).To(HaveLen(1))
			Expect(chat[0].Cards()).To(Equal([]string{"c_shell"}))
			Expect(chat[0].Texts()).To(Equal([]string{"Let me run it.", "Finished."}))
			Expect(cursortest.Done(chat[0].Steps[1].GetToolCall())).To(BeTrue())
		})

		It("leaves the client a settled checkpoint it can resolve, holding the round's result and the answer", func() {
			cp := lastCheckpoint(st)
			Expect(cp.GetPendingToolCalls()).To(BeEmpty())
			Expect(missingBlobs(f.c, cp)).To(BeEmpty())
			Expect(len(cp.GetRootPromptMessagesJson())).To(BeNumerically(">=", 4))
		})
	})

	It("runs only the still open call when the store is lost mid-round, after one of several calls was answered", func() {
		holdShell()
		f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{
			call("c_read", "Read", `{"path":"a.txt"}`), call("c_shell", "Shell", `{"command":"echo resumed"}`)}})
		first := open(f.c, cursortest.RunRequest("conv-lost-2", "kg-model", "Read and run"))
		Eventually(func() []string { return completedOrder(first) }).Should(Equal([]string{"c_read"}))
		Eventually(func() []string { return pendingOf(f.c.Checkpoint()) }).Should(Equal([]string{"c_shell"}),
			"a checkpoint with the read's result is published while the shell runs")
		f.h.wipe()
		f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Both done."}})
		st := resume("conv-lost-2", f.c.Checkpoint())
		Expect(st.EndError()).To(BeNil())
		Expect(execIDs(st)).To(Equal([]string{"c_shell"}), "the answered read does not run twice")
		reqs := f.h.provider.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(string(reqs[1].Body)).To(And(ContainSubstring("alpha"), ContainSubstring("resumed")))
		Expect(st.Texts()).To(Equal([]string{"Both done."}))
	})

	It("asks the model only for the next cycle when the store is lost after the round's results were published", func() {
		f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}})
		f.h.provider.Enqueue(providertest.Reply{Steps: []providertest.Step{{Stall: true}}})
		first := open(f.c, cursortest.RunRequest("conv-lost-3", "kg-model", "Read it"))
		Eventually(f.h.provider.Requests).Should(HaveLen(2), "the model is asked again, after the settled checkpoint")
		// The settled checkpoint is sent before the model is asked, but the
		// client reads its stream on its own goroutine: wait until it holds
		// the checkpoint that follows the read's completion.
		Eventually(func() bool {
			return slices.Contains(completedOrder(first), "c_read") && len(f.c.Checkpoint().GetPendingToolCalls()) == 0
		}).Should(BeTrue(), "the client holds the round's settled checkpoint")
		f.h.wipe()
		f.h.reply(providertest.Turn{ID: "r3", Text: []string{"It says alpha."}})
		st := resume("conv-lost-3", f.c.Checkpoint())
		Expect(st.EndError()).To(BeNil())
		Expect(execIDs(st)).To(BeEmpty(), "the answered call does not run again")
		reqs := f.h.provider.Requests()
		Expect(reqs).To(HaveLen(3))
		Expect(string(reqs[2].Body)).To(ContainSubstring("alpha"))
		Expect(st.Texts()).To(Equal([]string{"It says alpha."}))
	})

	It("ends the turn without a model call when the store is lost after the answer and the client holds it only as pending", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"The answer."}})
		first := finished(open(f.c, cursortest.RunRequest("conv-lost-4", "kg-model", "Answer me")))
		ks := cursortest.Kinds(first.Content())
		stagedFinal := first.Content()[slices.Index(ks, "turn_ended")+1].GetConversationCheckpointUpdate()
		Expect(stagedFinal.GetPendingToolCalls()).To(HaveLen(1))
		f.h.wipe()
		st := resume("conv-lost-4", stagedFinal)
		Expect(st.EndError()).To(BeNil())
		Expect(f.h.provider.Requests()).To(HaveLen(1), "the answer is not sampled again")
		cp := lastCheckpoint(st)
		Expect(cp.GetPendingToolCalls()).To(BeEmpty())
		Expect(cp.GetRootPromptMessagesJson()).To(HaveLen(len(stagedFinal.GetRootPromptMessagesJson()) + 1))
	})

	It("continues the round when the database was restored from a backup older than the conversation's last turn", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"First answer."}})
		finished(open(f.c, cursortest.RunRequest("conv-restored", "kg-model", "First question")))
		restore := f.h.snapshot()
		f.c.Rebind(f.h.env.URL, f.h.env.HTTP1)
		holdShell()
		f.h.reply(providertest.Turn{ID: "r2", Calls: []providertest.Call{call("c_shell", "Shell", `{"command":"echo resumed"}`)}})
		open(f.c.WithRequestID("req-2"), cursortest.Request("conv-restored", "kg-model",
			cursortest.UserMessageAction("m2", "Second question"), f.c.Checkpoint()))
		Eventually(func() []string { return pendingOf(f.c.Checkpoint()) }).Should(Equal([]string{"c_shell"}))
		restore()
		f.h.reply(providertest.Turn{ID: "r3", Text: []string{"Second answer."}})
		st := resume("conv-restored", f.c.Checkpoint())
		Expect(st.EndError()).To(BeNil())
		Expect(execIDs(st)).To(Equal([]string{"c_shell"}))
		reqs := f.h.provider.Requests()
		Expect(reqs).To(HaveLen(3))
		Expect(string(reqs[2].Body)).To(And(ContainSubstring("First answer."), ContainSubstring("Second question"), ContainSubstring("resumed")))
	})
})
