package tools_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

func newCall(name, args string) *tools.Call {
	return tools.New(llm.ToolCall{CallID: "call-1", Name: name, Arguments: []byte(args)},
		tools.Env{ConversationID: "conv", ModelID: "kg-model", Now: func() time.Time { return time.UnixMilli(1000) }})
}

func readOK(content string) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: &agentv1.ReadResult{
		Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{Path: "a.txt", Output: &agentv1.ReadSuccess_Content{Content: content}}}}}}
}

var _ = Describe("Call.Start", func() {
	DescribeTable("completes a call the client cannot run as a tool error, without an exec",
		func(name, args, want string) {
			a := newCall(name, args).Start()
			Expect(a.Exec).To(BeNil())
			Expect(a.Result).NotTo(BeNil())
			Expect(a.Result.IsError).To(BeTrue())
			Expect(a.Result.Content).To(ContainSubstring(want))
		},
		Entry("an unknown tool", "Teleport", `{}`, `unknown tool "Teleport"`),
		Entry("Read without a path", "Read", `{}`, `missing required argument "path"`),
		Entry("Shell without a command", "Shell", `{"description":"x"}`, `missing required argument "command"`),
		Entry("Shell with a numeric command", "Shell", `{"command":42}`, `missing required argument "command"`),
		Entry("Shell with a negative block_until_ms", "Shell", `{"command":"ls","block_until_ms":-1}`, "must not be negative"),
		Entry("CallMcpTool naming an unknown server", "CallMcpTool", `{"server":"x","toolName":"y"}`, "MCP tool not found"),
	)

	DescribeTable("maps a tool to its exec, matching names case- and punctuation-insensitively",
		func(name, args, want string) {
			a := newCall(name, args).Start()
			Expect(a.Exec).NotTo(BeNil())
			Expect(string(a.Exec.ProtoReflect().WhichOneof(a.Exec.ProtoReflect().Descriptor().Oneofs().ByName("message")).Name())).To(Equal(want))
			Expect(a.Exec.GetExecId()).To(Equal("call-1"))
		},
		Entry("Read", "read", `{"file_path":"a.txt"}`, "read_args"),
		Entry("Write reads first", "WRITE", `{"path":"a.txt","contents":""}`, "read_args"),
		Entry("StrReplace reads first", "str_replace", `{"path":"a","old_string":"x","new_string":"y"}`, "read_args"),
		Entry("Delete", "Delete", `{"path":"a"}`, "delete_args"),
		Entry("Ls", "ls", `{"path":"."}`, "ls_args"),
		Entry("Grep", "Grep", `{"pattern":"x"}`, "grep_args"),
		Entry("Glob as a grep without pattern", "Glob", `{"glob_pattern":"*.go"}`, "grep_args"),
		Entry("Shell as a shell stream", "Shell", `{"command":"ls"}`, "shell_stream_args"),
		Entry("Bash as Shell", "Bash", `{"command":"ls"}`, "shell_stream_args"),
		Entry("ReadLints as diagnostics", "ReadLints", `{"paths":["a.go"]}`, "diagnostics_args"),
		Entry("Task as a subagent", "Task", `{"description":"d","prompt":"p"}`, "subagent_args"),
	)

	It("stamps started_at_ms on the card", func() {
		c := newCall("Read", `{"path":"a.txt"}`)
		c.Start()
		Expect(c.Card().GetStartedAtMs()).To(BeEquivalentTo(1000))
		Expect(c.Card().GetReadToolCall().GetArgs().GetPath()).To(Equal("a.txt"))
	})

	It("gives a Task without a model the run's model", func() {
		a := newCall("Task", `{"description":"d","prompt":"p"}`).Start()
		Expect(a.Exec.GetSubagentArgs().GetModelId()).To(Equal("kg-model"))
		Expect(a.Exec.GetAcceptHookAdditionalContexts()).To(BeFalse())
	})
})

var _ = Describe("Call.OnStreamClose", func() {
	It("is not a result for a non-streaming exec, even when the client sends it before the result", func() {
		c := newCall("Read", `{"path":"a.txt"}`)
		c.Start()
		Expect(c.OnStreamClose().Result).To(BeNil())
		a := c.OnExec(readOK("text"))
		Expect(a.Result).NotTo(BeNil())
		Expect(a.Result.Content).To(Equal("text"))
	})

	It("fails a shell whose stream closes before it exited", func() {
		c := newCall("Shell", `{"command":"ls"}`)
		c.Start()
		a := c.OnStreamClose()
		Expect(a.Result).NotTo(BeNil())
		Expect(a.Result.IsError).To(BeTrue())
	})
})

var _ = Describe("Call.OnExec", func() {
	It("ignores an empty exec message", func() {
		c := newCall("Read", `{"path":"a.txt"}`)
		c.Start()
		Expect(c.OnExec(&agentv1.ExecClientMessage{}).Result).To(BeNil())
		Expect(c.OnExec(readOK("text")).Result.Content).To(Equal("text"), "the call still takes its result")
	})

	It("fails a call answered with the result of another tool", func() {
		c := newCall("Read", `{"path":"a.txt"}`)
		c.Start()
		a := c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{}}})
		Expect(a.Result.IsError).To(BeTrue())
		Expect(a.Result.Content).To(ContainSubstring("unexpected exec result for tool Read"))
	})

	It("edits by replacing the unique old string and writing the whole file", func() {
		c := newCall("StrReplace", `{"path":"a.txt","old_string":"cat","new_string":"dog"}`)
		c.Start()
		a := c.OnExec(readOK("a cat sat"))
		Expect(a.Exec.GetWriteArgs().GetFileText()).To(Equal("a dog sat"))
		done := c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
			Result: &agentv1.WriteResult_Success{Success: &agentv1.WriteSuccess{Path: "a.txt"}}}}})
		Expect(done.Result.IsError).To(BeFalse())
		Expect(c.Card().GetEditToolCall().GetResult().GetSuccess().GetBeforeFullFileContent()).To(Equal("a cat sat"))
	})

	DescribeTable("refuses an ambiguous or missing old string without writing",
		func(content, want string) {
			c := newCall("StrReplace", `{"path":"a.txt","old_string":"cat","new_string":"dog"}`)
			c.Start()
			a := c.OnExec(readOK(content))
			Expect(a.Exec).To(BeNil())
			Expect(a.Result.IsError).To(BeTrue())
			Expect(a.Result.Content).To(ContainSubstring(want))
		},
		Entry("the old string occurs twice", "cat cat", "occurs 2 times"),
		Entry("the old string is absent", "dog", "was not found"),
	)

	It("streams shell output and treats a non-zero exit as information, not a tool failure", func() {
		c := newCall("Shell", `{"command":"false"}`)
		c.Start()
		d := c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: &agentv1.ShellStream{
			Event: &agentv1.ShellStream_Stderr{Stderr: &agentv1.ShellStreamStderr{Data: "boom\n"}}}}})
		Expect(d.Delta.GetShellToolCallDelta().GetStderr().GetContent()).To(Equal("boom\n"))
		a := c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: &agentv1.ShellStream{
			Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{Code: 1}}}}})
		Expect(a.Result.IsError).To(BeFalse())
		Expect(a.Result.Content).To(And(ContainSubstring("Exit code: 1"), ContainSubstring("boom")))
		Expect(c.Card().GetShellToolCall().GetResult().GetFailure().GetExitCode()).To(BeEquivalentTo(1))
	})
})

var _ = Describe("Call.OnInteraction", func() {
	It("reports an approved mode switch", func() {
		c := newCall("SwitchMode", `{"target_mode_id":"plan"}`)
		a := c.Start()
		Expect(a.Query.GetSwitchModeRequestQuery().GetArgs().GetTargetModeId()).To(Equal("plan"))
		r := c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_SwitchModeRequestResponse{
			SwitchModeRequestResponse: &agentv1.SwitchModeRequestResponse{Result: &agentv1.SwitchModeRequestResponse_Approved_{
				Approved: &agentv1.SwitchModeRequestResponse_Approved{}}}}})
		Expect(r.Result.Content).To(Equal("Switched to plan mode."))
	})

	It("sends a plan as a create_plan query with pending todos", func() {
		a := newCall("CreatePlan", `{"plan":"1. do it","todos":[{"id":"t1","content":"do it"}]}`).Start()
		todos := a.Query.GetCreatePlanRequestQuery().GetArgs().GetTodos()
		Expect(todos).To(HaveLen(1))
		Expect(todos[0].GetStatus()).To(Equal(agentv1.TodoStatus_TODO_STATUS_PENDING))
	})
})

var _ = Describe("ForMode", func() {
	DescribeTable("offers file changes only in modes that may change files",
		func(mode string, edits bool) {
			ts, err := tools.ForMode(mode, tools.WebAccess{})
			Expect(err).NotTo(HaveOccurred())
			names := make([]string, len(ts))
			for i, t := range ts {
				names[i] = t.Name
				Expect(t.Parameters).NotTo(BeEmpty())
			}
			if edits {
				Expect(names).To(ContainElements("Write", "StrReplace", "Delete"))
			} else {
				Expect(names).NotTo(ContainElements("Write"))
				Expect(names).NotTo(ContainElements("StrReplace"))
			}
		},
		Entry("agent changes files", "agent", true),
		Entry("debug changes files", "debug", true),
		Entry("a subagent changes files", "subagent", true),
		Entry("ask only reads", "ask", false),
		Entry("plan only reads", "plan", false),
	)

	It("never offers the client's MCP tools by name: CallMcpTool calls them, so the tools do not depend on the MCP servers", func() {
		for _, mode := range []string{"agent", "ask", "plan", "debug", "multitask", "subagent"} {
			ts, err := tools.ForMode(mode, tools.WebAccess{Search: true, Fetch: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(ts).To(ContainElement(HaveField("Name", "CallMcpTool")), mode)
		}
	})

	DescribeTable("puts the tools every mode a conversation switches among shares first",
		func(a, b string, shared int) {
			web := tools.WebAccess{Search: true, Fetch: true}
			ta, err := tools.ForMode(a, web)
			Expect(err).NotTo(HaveOccurred())
			tb, err := tools.ForMode(b, web)
			Expect(err).NotTo(HaveOccurred())
			common := 0
			for common < len(ta) && common < len(tb) && ta[common].Name == tb[common].Name {
				common++
			}
			Expect(common).To(Equal(shared), "%s and %s share their first %d tools", a, b, common)
			Expect(tools.SharedTools(a, web)).To(Equal(15))
			Expect(common).To(BeNumerically(">=", tools.SharedTools(a, web)))
		},
		Entry("agent and plan share all but the tools that change files or switch modes", "agent", "plan", 20),
		Entry("agent and ask share the shared head", "agent", "ask", 15),
		Entry("plan and ask share the shared head", "plan", "ask", 15),
		Entry("agent and debug share all of debug's", "agent", "debug", 24),
		Entry("agent and multitask offer the same tools", "agent", "multitask", 26-1),
	)

	It("counts no shared head for a subagent, which never switches", func() {
		Expect(tools.SharedTools("subagent", tools.WebAccess{})).To(BeZero())
	})

	It("offers WebSearch and WebFetch each only when the turn's web access allows it, and never to a subagent", func() {
		names := func(mode string, web tools.WebAccess) []string {
			ts, err := tools.ForMode(mode, web)
			Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, t := range ts {
				out = append(out, t.Name)
			}
			return out
		}
		Expect(names("agent", tools.WebAccess{})).NotTo(ContainElements("WebSearch", "WebFetch"))
		Expect(names("agent", tools.WebAccess{Search: true, Fetch: true})).To(ContainElements("WebSearch", "WebFetch"))
		Expect(names("agent", tools.WebAccess{Fetch: true})).To(And(ContainElement("WebFetch"), Not(ContainElement("WebSearch"))))
		Expect(names("agent", tools.WebAccess{Search: true})).To(And(ContainElement("WebSearch"), Not(ContainElement("WebFetch"))))
		Expect(names("subagent", tools.WebAccess{Search: true, Fetch: true})).NotTo(ContainElements("WebSearch", "WebFetch"))
	})

	It("refuses a mode without a tool list", func() {
		_, err := tools.ForMode("triage", tools.WebAccess{})
		Expect(err).To(MatchError(tools.ErrUnknownMode))
	})
})
