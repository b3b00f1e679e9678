package agent_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// body is the text of the fake provider's i-th request.
func (f *fixture) body(i int) string {
	reqs := f.h.provider.Requests()
	Expect(len(reqs)).To(BeNumerically(">", i), "the model was called %d times", len(reqs))
	return string(reqs[i].Body)
}

// gate holds the client's Read execs until it is opened, so a spec can act
// while a tool round is open.
func gate(f *fixture) func() {
	ch := make(chan struct{})
	f.ws.Hold = func(ex *agentv1.ExecServerMessage) <-chan struct{} {
		if ex.GetReadArgs() != nil {
			return ch
		}
		return nil
	}
	return func() { close(ch) }
}

// lastTurn decodes the last turn of the client's latest checkpoint.
func lastTurn(c *cursortest.Client) *agentv1.ConversationTurnStructure {
	turns := c.Checkpoint().GetTurns()
	Expect(turns).NotTo(BeEmpty())
	data, ok := c.Blob(turns[len(turns)-1])
	Expect(ok).To(BeTrue())
	var ts agentv1.ConversationTurnStructure
	Expect(proto.Unmarshal(data, &ts)).To(Succeed())
	return &ts
}

func shellDeltas(st *cursortest.Stream) string {
	var out strings.Builder
	for _, m := range st.Content() {
		out.WriteString(m.GetInteractionUpdate().GetShellOutputDelta().GetStdout().GetData())
	}
	return out.String()
}

// toolNames are the tools of a provider request body (chat completions).
func toolNames(body string) []string {
	var names []string
	for _, part := range strings.Split(body, `"name":"`)[1:] {
		names = append(names, part[:strings.Index(part, `"`)])
	}
	return names
}

var _ = Describe("Cursor agent parity", func() {
	f := useFixture()

	DescribeTable("conversation actions, end to end through the simulated client",
		func(feature func(*fixture)) { feature(f) },

		Entry("! command: runs on the client, its output streams to the shell turn, it joins the conversation without a model call", func(f *fixture) {
			st := finished(open(f.c, cursortest.Request("conv-bang", "kg-model", cursortest.ShellCommand("echo hello from the user", "x-1"), nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.h.provider.Requests()).To(BeEmpty())
			Expect(f.ws.Execs()[0].GetShellStreamArgs().GetCommand()).To(Equal("echo hello from the user"))
			Expect(f.ws.Execs()[0].GetExecId()).To(Equal("x-1"))
			Expect(shellDeltas(st)).To(Equal("hello from the user\n"))
			ks := cursortest.Kinds(st.Content())
			Expect(ks[len(ks)-4:]).To(Equal([]string{"turn_ended", "checkpoint:settled", "checkpoint:settled", "checkpoint:settled"}))
			sh := lastTurn(f.c).GetShellConversationTurn()
			Expect(sh).NotTo(BeNil())
			data, _ := f.c.Blob(sh.GetShellOutput())
			var out agentv1.ShellOutput
			Expect(proto.Unmarshal(data, &out)).To(Succeed())
			Expect(out.GetStdout()).To(Equal("hello from the user\n"))

			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"You printed a greeting."}})
			finished(open(f.c.WithRequestID("req-2"), cursortest.Request("conv-bang", "kg-model", cursortest.UserMessageAction("m2", "What did I run?"), f.c.Checkpoint())))
			Expect(f.body(0)).To(And(ContainSubstring("$ echo hello from the user"), ContainSubstring("you did not run it")))
		}),

		Entry("! command typed while the agent works: runs once the agent's run has ended, in the same turn", func(f *fixture) {
			release := gate(f)
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Read it."}})
			st := open(f.c, cursortest.RunRequest("conv-bang-mid", "kg-model", "Read a"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Action(cursortest.ShellCommand("echo later", "x-2")))).To(Succeed())
			release()
			finished(st)
			Expect(st.EndError()).To(BeNil())
			Expect(f.h.provider.Requests()).To(HaveLen(2))
			ks := cursortest.Kinds(st.Content())
			Expect(slices.Index(ks, "exec:shell_stream_args")).To(BeNumerically(">", slices.Index(ks, "turn_ended")))
			Expect(shellDeltas(st)).To(Equal("later\n"))
		}),

		Entry("start plan: a user turn in plan mode, with plan mode's tools, recorded as plan mode", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Here is a plan."}})
			st := finished(open(f.c, cursortest.Request("conv-plan", "kg-model", cursortest.StartPlan("m1", "Plan a cache layer"), nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(And(ContainSubstring("Mode: plan"), ContainSubstring("Plan a cache layer")))
			Expect(toolNames(f.body(0))).To(And(ContainElement("CreatePlan"), Not(ContainElement("Write"))))
			Expect(f.c.Checkpoint().GetMode()).To(Equal(agentv1.AgentMode_AGENT_MODE_PLAN))
		}),

		Entry("late answers to questions: open a turn that tells the model the answers", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Postgres then."}})
			args := &agentv1.AskQuestionArgs{Questions: []*agentv1.AskQuestionArgs_Question{{Id: "db", Prompt: "Which?",
				Options: []*agentv1.AskQuestionArgs_Option{{Id: "pg", Label: "Postgres"}}}}}
			st := finished(open(f.c, cursortest.Request("conv-async", "kg-model",
				cursortest.AsyncAnswers("c_ask", args, &agentv1.AskQuestionSuccess_Answer{QuestionId: "db", SelectedOptionIds: []string{"pg"}}), nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(ContainSubstring("db: pg (Postgres)"))
		}),

		Entry("late answers while the agent works: join the run at its next step", func(f *fixture) {
			release := gate(f)
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Using Postgres."}})
			st := open(f.c, cursortest.RunRequest("conv-async-mid", "kg-model", "Read a"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Action(cursortest.AsyncAnswers("c_ask", nil,
				&agentv1.AskQuestionSuccess_Answer{QuestionId: "db", SelectedOptionIds: []string{"pg"}})))).To(Succeed())
			release()
			finished(st)
			Expect(st.EndError()).To(BeNil())
			Expect(f.h.provider.Requests()).To(HaveLen(2))
			Expect(f.body(1)).To(And(ContainSubstring("alpha"), ContainSubstring("db: pg")))
		}),

		Entry("notifications the user subscribed to: a turn that shows them and asks the model to act", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"I will look at the review."}})
			st := finished(open(f.c, cursortest.Request("conv-notify", "kg-model", cursortest.Notifications("PR #7 got a review comment"), nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(ContainSubstring("PR #7 got a review comment"))
			data, _ := f.c.Blob(lastTurn(f.c).GetAgentConversationTurn().GetUserMessage())
			var um agentv1.UserMessage
			Expect(proto.Unmarshal(data, &um)).To(Succeed())
			Expect(um.GetText()).To(Equal("PR #7 got a review comment"))
		}),

		Entry("goal continuation: the model is asked to keep working toward the checkpoint's goal", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Continuing."}})
			state := &agentv1.ConversationStateStructure{GoalState: &agentv1.GoalState{Objective: "all tests green", Status: agentv1.GoalStatus_GOAL_STATUS_ACTIVE}}
			st := finished(open(f.c, cursortest.Request("conv-goal", "kg-model", cursortest.GoalContinuation(), state)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(ContainSubstring("The goal: all tests green"))
		}),

		Entry("queued follow-up that opens a turn: a user turn, reported queued and delivered", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Adding tests."}})
			st := finished(open(f.c, cursortest.Request("conv-inject", "kg-model", cursortest.Inject("inj-1", "req-1", "and add tests").GetConversationAction(), nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(ContainSubstring("and add tests"))
			ks := cursortest.Kinds(st.Content())
			Expect(ks).To(ContainElements("injection", "user_message_appended"))
		}),

		Entry("move a running shell to the background: the client backgrounds it and the run goes on", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_sh", "Shell", `{"command":"echo started; sleep 30"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"It runs in the background."}})
			st := open(f.c, cursortest.RunRequest("conv-bgsh", "kg-model", "Start the server"))
			Eventually(func() string { return shellStdout(st) }).Should(Equal("started\n"))
			Expect(f.c.Send(ctx(), cursortest.Action(cursortest.BackgroundShell("c_sh")))).To(Succeed())
			finished(st)
			Expect(st.EndError()).To(BeNil())
			Expect(cursortest.Kinds(st.Content())).To(ContainElement("exec:force_background_shell_args"))
			Expect(f.body(1)).To(ContainSubstring("moved to the background"))
		}),

		Entry("move a running subagent to the background: its Task completes, its state is kept in the checkpoint", func(f *fixture) {
			f.ws.Subagent = func(ctx context.Context, args *agentv1.SubagentArgs) *agentv1.SubagentResult {
				select {
				case <-f.ws.Backgrounded(args.GetToolCallId()):
				case <-ctx.Done():
				}
				return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "sub-bg",
					BackgroundReason: agentv1.SubagentBackgroundReason_SUBAGENT_BACKGROUND_REASON_USER_REQUEST}}}
			}
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_task", "Task", `{"description":"audit","prompt":"Audit deps"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"The audit runs in the background."}})
			st := open(f.c, cursortest.RunRequest("conv-bgsub", "kg-model", "Audit"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Action(cursortest.BackgroundSubagent("c_task")))).To(Succeed())
			finished(st)
			Expect(st.EndError()).To(BeNil())
			Expect(cursortest.Kinds(st.Content())).To(ContainElement("exec:force_background_subagent_args"))
			Expect(f.body(1)).To(ContainSubstring(`call Await with task_id \"sub-bg\"`))
			cp := f.c.Checkpoint()
			Expect(cp.GetSubagentRunsByParentToolCallId()["c_task"].GetStatus()).To(Equal(agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_BACKGROUNDED))
			Expect(cp.GetSubagentStates()).To(HaveKey("sub-bg"))
		}),

		Entry("a background subagent that finishes: its run is marked done in the checkpoint and the model is told", func(f *fixture) {
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"The audit is done."}})
			state := &agentv1.ConversationStateStructure{SubagentRunsByParentToolCallId: map[string]*agentv1.SubagentRunState{
				"c_task": {ParentToolCallId: "c_task", SubagentId: ptr("sub-bg"), Status: agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_BACKGROUNDED}}}
			st := finished(open(f.c, cursortest.Request("conv-bgdone", "kg-model", cursortest.BackgroundCompletion(&agentv1.BackgroundTaskCompletion{
				TaskId: "sub-bg", Kind: agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SUBAGENT, Status: agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS,
				Title: "audit", Detail: ptr("no vulnerable deps")}), state)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(ContainSubstring("no vulnerable deps"))
			Expect(f.c.Checkpoint().GetSubagentRunsByParentToolCallId()["c_task"].GetStatus()).To(Equal(agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_SUCCESS))
		}),

		Entry("cancel, cancel subagent and moves to the background with nothing running: the turn ends at once, no model call", func(f *fixture) {
			for i, a := range []*agentv1.ConversationAction{
				{Action: &agentv1.ConversationAction_CancelAction{CancelAction: &agentv1.CancelAction{}}},
				cursortest.CancelSubagent("gone"), cursortest.BackgroundShell("gone"), cursortest.BackgroundSubagent("gone"),
			} {
				c := f.c.WithRequestID("req-noop-" + string(rune('a'+i)))
				st := finished(open(c, cursortest.Request("conv-noop", "kg-model", a, nil)))
				Expect(st.EndError()).To(BeNil())
				Expect(cursortest.Kinds(st.Content())).To(ContainElement("turn_ended"))
			}
			Expect(f.h.provider.Requests()).To(BeEmpty())
			Expect(f.c.Checkpoint().GetTurns()).To(BeEmpty())
		}),
	)

	DescribeTable("tools, end to end through the simulated client",
		func(feature func(*fixture)) { feature(f) },

		Entry("background shell: started, typed into, awaited until the client reports it done", func(f *fixture) {
			f.ws.NotifyBackground = true
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_bg", "BackgroundShell", `{"command":"read line; echo got $line"}`)}},
				providertest.Turn{ID: "r2", Calls: []providertest.Call{call("c_in", "WriteShellStdin", `{"shell_id":1,"chars":"yes\n"}`)}},
				providertest.Turn{ID: "r3", Calls: []providertest.Call{call("c_wait", "Await", `{"task_id":"1","block_until_ms":10000}`)}},
				providertest.Turn{ID: "r4", Text: []string{"The command finished."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-bgshell", "kg-model", "Run it in the background")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(ContainSubstring("runs in the background as shell 1"))
			Expect(f.body(2)).To(ContainSubstring("Wrote 4 characters to shell 1"))
			Expect(f.body(3)).To(ContainSubstring("Task 1 finished (success)"))
			Expect(completed(st, "c_bg").GetShellToolCall().GetResult().GetIsBackground()).To(BeTrue())
			Expect(completed(st, "c_wait").GetAwaitToolCall().GetResult().GetSuccess().GetComplete()).NotTo(BeNil())
		}),

		Entry("await on a shell that does not finish in time: still running", func(f *fixture) {
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_wait", "Await", `{"task_id":"9","block_until_ms":50}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Still going."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-await", "kg-model", "Wait")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(ContainSubstring("Task 9 is still running after 50 ms."))
		}),

		Entry("background subagent: run_in_background, then awaited through the client", func(f *fixture) {
			f.ws.Subagent = func(_ context.Context, args *agentv1.SubagentArgs) *agentv1.SubagentResult {
				Expect(args.GetRunInBackground()).To(BeTrue())
				return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "sub-7",
					BackgroundReason: agentv1.SubagentBackgroundReason_SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST}}}
			}
			f.ws.SubagentAwait = func(a *agentv1.SubagentAwaitArgs) *agentv1.SubagentAwaitResult {
				return &agentv1.SubagentAwaitResult{Result: &agentv1.SubagentAwaitResult_Complete{Complete: &agentv1.SubagentAwaitComplete{
					AgentId: a.GetAgentId(), FinalMessage: ptr("three packages")}}}
			}
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_task", "Task", `{"description":"d","prompt":"p","run_in_background":true}`)}},
				providertest.Turn{ID: "r2", Calls: []providertest.Call{call("c_wait", "Await", `{"task_id":"sub-7"}`)}},
				providertest.Turn{ID: "r3", Text: []string{"Three packages."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-bgtask", "kg-model", "Explore in the background")))
			Expect(st.EndError()).To(BeNil())
			Expect(cursortest.Kinds(st.Content())).To(ContainElement("exec:subagent_await_args"))
			Expect(f.body(2)).To(ContainSubstring("three packages"))
		}),

		Entry("subagent model overrides: the user's choice for the type wins; a turned-off type is refused", func(f *fixture) {
			f.ws.Subagent = func(_ context.Context, args *agentv1.SubagentArgs) *agentv1.SubagentResult {
				return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "s", FinalMessage: ptr(args.GetModelId())}}}
			}
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{
					call("c_ex", "Task", `{"description":"d","prompt":"p","subagent_type":"explore","model":"kg-model"}`),
					call("c_sh", "Task", `{"description":"d","prompt":"p","subagent_type":"shell"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}},
			)
			req := cursortest.RunRequest("conv-overrides", "kg-model", "Delegate")
			req.GetRunRequest().SubagentModelOverrides = []*agentv1.SubagentModelOverride{
				{SubagentType: "explore", Selection: &agentv1.SubagentModelOverride_Model{Model: &agentv1.RequestedModel{ModelId: "kg-other"}}},
				{SubagentType: "shell", Selection: &agentv1.SubagentModelOverride_Disabled{Disabled: true}}}
			st := finished(open(f.c, req))
			Expect(st.EndError()).To(BeNil())
			Expect(f.ws.Execs()).To(HaveLen(1))
			Expect(f.ws.Execs()[0].GetSubagentArgs().GetModelId()).To(Equal("kg-other"))
			Expect(f.body(1)).To(ContainSubstring(`subagents of type \"shell\" are turned off`))
		}),

		Entry("mode switch: once approved, the next model call has the new mode's tools and the checkpoint records it", func(f *fixture) {
			f.ws.Answer = cursortest.Approve
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_sw", "SwitchMode", `{"target_mode_id":"plan"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Planning now."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-switch", "kg-model", "Let us plan")))
			Expect(st.EndError()).To(BeNil())
			Expect(toolNames(f.body(0))).To(ContainElement("Write"))
			Expect(toolNames(f.body(1))).To(And(ContainElement("CreatePlan"), Not(ContainElement("Write"))))
			Expect(f.body(1)).To(ContainSubstring(`Switched to plan mode.\n\n<mode>\nMode: plan.`), "the result carries the new mode's paragraph")
			Expect(f.c.Checkpoint().GetMode()).To(Equal(agentv1.AgentMode_AGENT_MODE_PLAN))
			first, err := providertest.PromptSegments(mainKind, []byte(f.body(0)))
			Expect(err).NotTo(HaveOccurred())
			second, err := providertest.PromptSegments(mainKind, []byte(f.body(1)))
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.Retained(first, second).Changed).To(Equal("tools[18]"), "the instructions and the tools agent and plan share stay")
		}),

		Entry("read an image: a model that takes images gets the image", func(f *fixture) {
			png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRparity")
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "logo.png"), png, 0o644)).To(Succeed())
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_img", "Read", `{"path":"logo.png"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"A logo."}})
			st := finished(open(f.c, cursortest.RunRequest("conv-img", "kg-vision", "Look at the logo")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(ContainSubstring(base64.StdEncoding.EncodeToString(png)))
			Expect(f.body(1)).NotTo(ContainSubstring("File is empty."))
		}),

		Entry("read an image or a binary with a model that takes no images: a clear note, never \"File is empty.\"", func(f *fixture) {
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "app.bin"), []byte{0x7f, 'E', 'L', 'F', 0, 0}, 0o644)).To(Succeed())
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_img", "Read", `{"path":"logo.png"}`), call("c_bin", "Read", `{"path":"app.bin"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Noted."}})
			st := finished(open(f.c, cursortest.RunRequest("conv-noimg", "kg-model", "Look")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(And(ContainSubstring("does not take images"), ContainSubstring("app.bin is a binary file"),
				Not(ContainSubstring("File is empty."))))
		}),

		Entry("read lints: every path is linted and the card lists each file's diagnostics", func(f *fixture) {
			f.ws.Diagnostics = func(path string) []*agentv1.Diagnostic {
				return []*agentv1.Diagnostic{{Severity: agentv1.DiagnosticSeverity_DIAGNOSTIC_SEVERITY_ERROR, Message: "problem in " + path,
					Range: &agentv1.Range{Start: &agentv1.Position{Line: 2}}}}
			}
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_lint", "ReadLints", `{"paths":["a.go","b.go"]}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Two problems."}})
			st := finished(open(f.c, cursortest.RunRequest("conv-lints", "kg-model", "Lint")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(And(ContainSubstring("problem in a.go"), ContainSubstring("problem in b.go")))
			files := completed(st, "c_lint").GetReadLintsToolCall().GetResult().GetSuccess().GetFileDiagnostics()
			Expect(files).To(HaveLen(2))
			Expect(files[1].GetDiagnostics()[0].GetMessage()).To(Equal("problem in b.go"))
		}),

		Entry("edit a notebook: the client reads and writes the .ipynb with the cell changed", func(f *fixture) {
			nb := `{"cells":[{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":["print(1)\n"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "a.ipynb"), []byte(nb), 0o644)).To(Succeed())
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_nb", "EditNotebook",
				`{"target_notebook":"a.ipynb","cell_idx":0,"old_string":"print(1)","new_string":"print(2)"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Edited."}})
			st := finished(open(f.c, cursortest.RunRequest("conv-nb", "kg-model", "Change the cell")))
			Expect(st.EndError()).To(BeNil())
			Expect(os.ReadFile(filepath.Join(f.ws.Root, "a.ipynb"))).To(ContainSubstring(`"print(2)\n"`))
			Expect(completed(st, "c_nb").GetEditToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		}),

		Entry("MCP: sign-in asked of the user, tools listed, resources listed and read", func(f *fixture) {
			f.ws.Answer = cursortest.Approve
			f.ws.MCPState = []*agentv1.McpStateServer{{ServerName: "Docs", ServerIdentifier: "docs", Status: ptr("connected"),
				Tools: []*agentv1.McpToolDefinition{{ToolName: "search_docs", Description: "Search the docs."}}}}
			f.ws.MCPResources = []cursortest.MCPResource{{Server: "docs", URI: "docs://guide", Name: "Guide", Text: "The guide's text."}}
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{
					call("c_auth", "CallMcpTool", `{"server":"docs","toolName":"mcp_auth"}`),
					call("c_tools", "GetMcpTools", `{"server":"docs"}`),
					call("c_list", "ListMcpResources", `{}`),
					call("c_get", "FetchMcpResource", `{"server":"docs","uri":"docs://guide"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Read the guide."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-mcp-full", "kg-model", "Use the docs server")))
			Expect(st.EndError()).To(BeNil())
			Expect(cursortest.Kinds(st.Content())).To(ContainElements("query:mcp_auth_request_query", "exec:mcp_state_exec_args",
				"exec:list_mcp_resources_exec_args", "exec:read_mcp_resource_exec_args"))
			Expect(f.body(1)).To(And(ContainSubstring("signed in to docs"), ContainSubstring("search_docs"),
				ContainSubstring("docs://guide"), ContainSubstring("The guide's text.")))
			Expect(completed(st, "c_auth").GetMcpAuthToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		}),
	)

	DescribeTable("what the model sees of the request context",
		func(feature func(*fixture)) { feature(f) },

		Entry("rules by type: always inline; glob with a call on a matching file; requestable fetched on request; manual only when mentioned", func(f *fixture) {
			action := cursortest.UserMessageAction("m1", "Read a.txt")
			action.GetUserMessageAction().RequestContext = &agentv1.RequestContext{Env: &agentv1.RequestContextEnv{WorkspacePaths: []string{f.ws.Root}},
				Rules: []*agentv1.CursorRule{
					{FullPath: "/r/style.mdc", Content: "RULE-ALWAYS", Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_Global{Global: &agentv1.CursorRuleTypeGlobal{}}}},
					{FullPath: "/r/text.mdc", Content: "RULE-GLOB", Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_FileGlobbed{
						FileGlobbed: &agentv1.CursorRuleTypeFileGlobs{Globs: []string{"*.txt"}}}}},
					{FullPath: "/r/db.mdc", Content: "RULE-REQUESTED", Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_AgentFetched{
						AgentFetched: &agentv1.CursorRuleTypeAgentFetched{Description: "database work"}}}},
					{FullPath: "/r/release.mdc", Content: "RULE-MANUAL", Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_ManuallyAttached{
						ManuallyAttached: &agentv1.CursorRuleTypeManuallyAttached{}}}},
				}}
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`), call("c_rule", "FetchRules", `{"rule_names":["db"]}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}},
			)
			st := finished(open(f.c, cursortest.Request("conv-rules", "kg-model", action, nil)))
			Expect(st.EndError()).To(BeNil())
			first := f.body(0)
			Expect(first).To(And(ContainSubstring("RULE-ALWAYS"), ContainSubstring("database work"),
				Not(ContainSubstring("RULE-GLOB")), Not(ContainSubstring("RULE-REQUESTED")), Not(ContainSubstring("RULE-MANUAL"))))
			Expect(f.body(1)).To(And(ContainSubstring("RULE-GLOB"), ContainSubstring("RULE-REQUESTED"), Not(ContainSubstring("RULE-MANUAL"))))
		}),

		Entry("MCP servers' instructions, project layouts and the hooks' context", func(f *fixture) {
			action := cursortest.UserMessageAction("m1", "Hi")
			action.GetUserMessageAction().RequestContext = &agentv1.RequestContext{
				McpInstructions:        []*agentv1.McpInstructions{{ServerName: "Linear", ServerIdentifier: "linear", Instructions: "Prefix issue ids with LIN-."}},
				ProjectLayouts:         []*agentv1.LsDirectoryTreeNode{{AbsPath: "/ws", ChildrenFiles: []*agentv1.LsDirectoryTreeNode_File{{Name: "go.mod"}}}},
				HooksAdditionalContext: ptr("The build on main is red."),
			}
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Hello."}})
			st := finished(open(f.c, cursortest.Request("conv-ctx", "kg-model", action, nil)))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(0)).To(And(ContainSubstring("Prefix issue ids with LIN-."), ContainSubstring("- go.mod"),
				ContainSubstring("The build on main is red.")))
		}),
	)
})

// shellStdout is the shell output streamed to tool cards so far.
func shellStdout(st *cursortest.Stream) string {
	var out strings.Builder
	for _, m := range st.Content() {
		out.WriteString(m.GetInteractionUpdate().GetToolCallDelta().GetToolCallDelta().GetShellToolCallDelta().GetStdout().GetContent())
	}
	return out.String()
}

var _ = Describe("Cursor agent parity on every provider protocol", func() {
	DescribeTable("a Read of an image reaches a model that takes images as an image",
		func(kind llm.ProviderKind) {
			f := newFixture(kind)
			png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRprotocol")
			Expect(os.WriteFile(filepath.Join(f.ws.Root, "logo.png"), png, 0o644)).To(Succeed())
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_img", "Read", `{"path":"logo.png"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"A logo."}})
			st := finished(open(f.c, cursortest.RunRequest("conv-img-"+string(kind), "kg-vision", "Look at the logo")))
			Expect(st.EndError()).To(BeNil())
			Expect(f.body(1)).To(ContainSubstring(base64.StdEncoding.EncodeToString(png)))
		},
		smokeEntries(),
	)
})
