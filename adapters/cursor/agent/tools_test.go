package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// call is a scripted tool call with its whole argument text.
func call(id, name, args string) providertest.Call {
	return providertest.Call{ID: id, Name: name, Arguments: []string{args}}
}

// completedOrder returns the call ids of tool_call_completed, in order.
func completedOrder(st *cursortest.Stream) []string {
	var ids []string
	for _, m := range st.Content() {
		if u := m.GetInteractionUpdate().GetToolCallCompleted(); u != nil {
			ids = append(ids, u.GetCallId())
		}
	}
	return ids
}

func completed(st *cursortest.Stream, callID string) *agentv1.ToolCall {
	for _, m := range st.Content() {
		if u := m.GetInteractionUpdate().GetToolCallCompleted(); u != nil && u.GetCallId() == callID {
			return u.GetToolCall()
		}
	}
	return nil
}

var _ = Describe("Handler serving a tool round", func() {
	f := useFixture()
	var st *cursortest.Stream

	When("the model asks for three calls that complete out of order", func() {
		BeforeEach(func() {
			f.ws.Delay = func(ex *agentv1.ExecServerMessage) time.Duration {
				switch {
				case ex.GetExecId() == "call_read": // the Write reads too, at once
					return 400 * time.Millisecond
				case ex.GetShellStreamArgs() != nil:
					return 150 * time.Millisecond
				}
				return 0
			}
			f.ws.CloseFirst = true
			f.h.reply(
				providertest.Turn{ID: "r1", Text: []string{"Let me look."}, Calls: []providertest.Call{
					call("call_read", "Read", `{"path":"a.txt"}`),
					call("call_write", "Write", `{"path":"b.txt","contents":"written by the model\n"}`),
					call("call_shell", "Shell", `{"command":"echo one; echo two"}`),
				}},
				providertest.Turn{ID: "r2", Text: []string{"All done."}},
			)
			st = finished(open(f.c, cursortest.RunRequest("conv-tools", "kg-model", "Do three things")))
		})

		It("runs every call in the workspace and finishes the turn", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(os.ReadFile(filepath.Join(f.ws.Root, "b.txt"))).To(Equal([]byte("written by the model\n")))
			Expect(st.Texts()).To(Equal([]string{"Let me look.", "All done."}))
		})

		It("completes the calls in the order the client finished them", func() {
			Expect(completedOrder(st)).To(Equal([]string{"call_write", "call_shell", "call_read"}))
		})

		It("gives the model every result in its second request", func() {
			reqs := f.h.provider.Requests()
			Expect(reqs).To(HaveLen(2))
			body := string(reqs[1].Body)
			Expect(body).To(ContainSubstring("alpha"))
			Expect(body).To(ContainSubstring(`one\ntwo`))
			Expect(body).To(ContainSubstring("call_write"))
		})

		It("streams the shell's output as tool_call_delta before the call completes", func() {
			ks := cursortest.Kinds(st.Content())
			Expect(ks).To(ContainElement("tool_call_delta"))
			var out string
			for _, m := range st.Content() {
				out += m.GetInteractionUpdate().GetToolCallDelta().GetToolCallDelta().GetShellToolCallDelta().GetStdout().GetContent()
			}
			Expect(out).To(Equal("one\ntwo\n"))
		})

		It("shows typed tool cards with their results", func() {
			Expect(completed(st, "call_read").GetReadToolCall().GetResult().GetSuccess().GetContent()).To(Equal("alpha\n"))
			Expect(completed(st, "call_write").GetEditToolCall().GetResult().GetSuccess().GetAfterFullFileContent()).To(Equal("written by the model\n"))
			Expect(completed(st, "call_shell").GetShellToolCall().GetResult().GetSuccess().GetStdout()).To(Equal("one\ntwo\n"))
		})

		It("publishes a staged checkpoint with the open calls after dispatch and a settled one when the round is done", func() {
			ks := cursortest.Kinds(st.Content())
			staged := slices.Index(ks, "checkpoint:staged")
			Expect(staged).To(BeNumerically(">", slices.Index(ks, "exec:shell_stream_args")))
			Expect(st.Content()[staged].GetConversationCheckpointUpdate().GetPendingToolCalls()[0]).To(
				And(ContainSubstring("call_read"), ContainSubstring("call_write"), ContainSubstring("call_shell")))
			lastCompleted := slices.Index(ks, "tool_call_completed") + 2
			Expect(slices.Index(ks[lastCompleted:], "checkpoint:settled")).To(BeNumerically(">=", 0))
			Expect(ks[len(ks)-4:]).To(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
		})

		It("never publishes a checkpoint the client cannot resolve", func() {
			for _, m := range st.Content() {
				Expect(missingBlobs(f.c, m.GetConversationCheckpointUpdate())).To(BeEmpty())
			}
		})
	})

	When("the model edits, deletes, lists and searches", func() {
		BeforeEach(func() {
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "old.txt"), []byte("remove me"), 0o644)).To(Succeed())
			Expect(os.MkdirAll(filepath.Join(f.ws.Root, "pkg"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "pkg", "main.go"), []byte("package main\n// needle here\n"), 0o644)).To(Succeed())
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{
					call("c_edit", "StrReplace", `{"path":"a.txt","old_string":"alpha","new_string":"omega"}`),
					call("c_del", "Delete", `{"path":"old.txt"}`),
					call("c_ls", "Ls", `{"path":"."}`),
					call("c_grep", "Grep", `{"pattern":"needle"}`),
					call("c_glob", "Glob", `{"glob_pattern":"**/*.go"}`),
				}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}},
			)
			st = finished(open(f.c, cursortest.RunRequest("conv-files", "kg-model", "Tidy up")))
		})

		It("changes the workspace as asked", func() {
			Expect(st.EndError()).To(BeNil())
			Expect(os.ReadFile(filepath.Join(f.ws.Root, "a.txt"))).To(Equal([]byte("omega\n")))
			Expect(filepath.Join(f.ws.Root, "old.txt")).NotTo(BeAnExistingFile())
		})

		It("edits by reading the file first and writing it whole", func() {
			var kinds []string
			for _, ex := range f.ws.Execs() {
				if ex.GetExecId() == "c_edit" {
					kinds = append(kinds, cursortest.Kind(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_ExecServerMessage{ExecServerMessage: ex}}))
				}
			}
			Expect(kinds).To(Equal([]string{"exec:read_args", "exec:write_args"}))
		})

		It("gives the model the listing and the search results", func() {
			body := string(f.h.provider.Requests()[1].Body)
			Expect(body).To(ContainSubstring("pkg/"))
			Expect(body).To(ContainSubstring("pkg/main.go:2:// needle here"))
			Expect(body).To(ContainSubstring("Deleted old.txt"))
		})

		It("sends a glob as a file search without a pattern", func() {
			Expect(completed(st, "c_glob").GetGlobToolCall().GetResult().GetSuccess().GetFiles()).To(Equal([]string{"pkg/main.go"}))
		})
	})
})

var _ = Describe("Handler over HTTP/2 AgentService/Run", func() {
	f := useFixture()

	It("serves a tool round with exec results and KV replies on the request body", func() {
		h, c := f.h, f.c
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Read it."}},
		)
		rs, err := c.Run(ctx(), h.env.H2C, cursortest.RunRequest("conv-h2", "kg-model", "Read a"), true)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Eventually(rs.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(rs.EndError()).To(BeNil())
		Expect(rs.ProtoMajor).To(Equal(2))
		Expect(rs.Texts()).To(Equal([]string{"Read it."}))
		Expect(string(h.provider.Requests()[1].Body)).To(ContainSubstring("alpha"))
		for _, m := range rs.Content() {
			Expect(missingBlobs(c, m.GetConversationCheckpointUpdate())).To(BeEmpty())
		}
	})
})

var _ = Describe("Handler serving TodoWrite", func() {
	It("keeps the todo list in the checkpoint and merges updates from a later turn", func() {
		h := newHarness(mainKind)
		c := h.env.Client("req-todo")
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_todo", "TodoWrite",
				`{"merge":false,"todos":[{"id":"1","content":"write code","status":"in_progress"},{"id":"2","content":"test it","status":"pending"}]}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Planned."}},
		)
		st := finished(open(c, cursortest.RunRequest("conv-todo", "kg-model", "Plan it")))
		Expect(st.EndError()).To(BeNil())
		Expect(checkpoint.Todos(lastCheckpoint(st))).To(HaveLen(2))
		Expect(h.provider.Requests()[1].Body).To(ContainSubstring("[in_progress] write code"))

		h.reply(
			providertest.Turn{ID: "r3", Calls: []providertest.Call{call("c_todo2", "TodoWrite",
				`{"merge":true,"todos":[{"id":"1","content":"write code","status":"completed"}]}`)}},
			providertest.Turn{ID: "r4", Text: []string{"One done."}},
		)
		st = finished(open(c.WithRequestID("req-todo-2"), cursortest.Request("conv-todo", "kg-model",
			cursortest.UserMessageAction("m2", "Progress?"), c.Checkpoint())))
		todos := checkpoint.Todos(lastCheckpoint(st))
		Expect(todos).To(HaveLen(2))
		Expect(todos[0].GetStatus()).To(Equal(agentv1.TodoStatus_TODO_STATUS_COMPLETED))
		Expect(todos[1].GetStatus()).To(Equal(agentv1.TodoStatus_TODO_STATUS_PENDING))
	})
})

var _ = Describe("Handler across rounds that reuse a call id", func() {
	f := useFixture()

	It("runs both rounds and finishes: a call id is unique within its round only", func() {
		h, c, ws := f.h, f.c, f.ws
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("call-1", "Read", `{"path":"a.txt"}`)}},
			providertest.Turn{ID: "r2", Calls: []providertest.Call{call("call-1", "Ls", `{"path":"."}`)}},
			providertest.Turn{ID: "r3", Text: []string{"Both done."}},
		)
		st := finished(open(c, cursortest.RunRequest("conv-dup", "kg-model", "Twice")))
		Expect(st.EndError()).To(BeNil())
		Expect(ws.Execs()).To(HaveLen(2))
		Expect(h.provider.Requests()).To(HaveLen(3))
		Expect(st.Texts()).To(Equal([]string{"Both done."}))
	})
})
