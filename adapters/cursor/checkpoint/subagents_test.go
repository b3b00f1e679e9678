package checkpoint_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/checkpoint"
	agentv1 "keygate/gen/cursor/agent/v1"
)

func taskCard(callID string, result *agentv1.TaskResult) *agentv1.ToolCall {
	return &agentv1.ToolCall{ToolCallId: &callID, Tool: &agentv1.ToolCall_TaskToolCall{TaskToolCall: &agentv1.TaskToolCall{
		Args: &agentv1.TaskArgs{Description: "map the code", Model: proto.String("kg-small"),
			SubagentType: &agentv1.SubagentType{Type: &agentv1.SubagentType_Explore{Explore: &agentv1.SubagentTypeExplore{}}}},
		Result: result}}}
}

func backgrounded(agent string) *agentv1.TaskResult {
	return &agentv1.TaskResult{Result: &agentv1.TaskResult_Success{Success: &agentv1.TaskSuccess{AgentId: &agent, IsBackground: true}}}
}

var _ = Describe("A checkpoint's subagents", func() {
	now := time.UnixMilli(5000)
	base := &agentv1.ConversationStateStructure{
		SubagentStates: map[string]*agentv1.SubagentPersistedState{"old": {CreatedTimestampMs: 1000, LastUsedTimestampMs: 1000}},
	}

	It("records a running Task, then its backgrounded subagent's state, and keeps the client's other subagents", func() {
		subs := &checkpoint.Subagents{Base: base}
		subs.Task(taskCard("c1", nil), now)
		st, _ := checkpoint.Settled(checkpoint.Projection{Base: base, Subagents: subs})
		Expect(st.GetSubagentRunsByParentToolCallId()["c1"].GetStatus()).To(Equal(agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_RUNNING))

		subs.Task(taskCard("c1", backgrounded("sub-9")), now)
		st, _ = checkpoint.Settled(checkpoint.Projection{Base: base, Subagents: subs})
		run := st.GetSubagentRunsByParentToolCallId()["c1"]
		Expect(run.GetStatus()).To(Equal(agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_BACKGROUNDED))
		Expect(run.GetSubagentId()).To(Equal("sub-9"))
		Expect(run.GetTitle()).To(Equal("map the code"))
		state := st.GetSubagentStates()["sub-9"]
		Expect(state.GetCreatedTimestampMs()).To(BeEquivalentTo(5000))
		Expect(state.GetModelId()).To(Equal("kg-small"))
		Expect(state.GetSubagentType().GetExplore()).NotTo(BeNil())
		Expect(st.GetSubagentStates()).To(HaveKey("old"))
		Expect(subs.IDs()).To(ConsistOf("old", "sub-9"))
	})

	It("marks a backgrounded subagent done when the client reports its end", func() {
		subs := &checkpoint.Subagents{Base: base}
		subs.Task(taskCard("c1", backgrounded("sub-9")), now)
		subs.Completed(&agentv1.BackgroundTaskCompletion{TaskId: "sub-9", Kind: agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SUBAGENT,
			Status: agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS, OutputPath: proto.String("/t/sub-9.md")}, time.UnixMilli(9000))
		st, _ := checkpoint.Settled(checkpoint.Projection{Base: base, Subagents: subs})
		run := st.GetSubagentRunsByParentToolCallId()["c1"]
		Expect(run.GetStatus()).To(Equal(agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_SUCCESS))
		Expect(run.GetCompletedTimestampMs()).To(BeEquivalentTo(9000))
		Expect(run.GetOutputPath()).To(Equal("/t/sub-9.md"))
	})

	It("resumes a subagent the client holds: created stays, last used moves", func() {
		subs := &checkpoint.Subagents{Base: base}
		agent := "old"
		subs.Task(taskCard("c2", &agentv1.TaskResult{Result: &agentv1.TaskResult_Success{Success: &agentv1.TaskSuccess{AgentId: &agent}}}), now)
		st, _ := checkpoint.Settled(checkpoint.Projection{Base: base, Subagents: subs})
		Expect(st.GetSubagentStates()["old"].GetCreatedTimestampMs()).To(BeEquivalentTo(1000))
		Expect(st.GetSubagentStates()["old"].GetLastUsedTimestampMs()).To(BeEquivalentTo(5000))
		Expect(base.GetSubagentStates()["old"].GetLastUsedTimestampMs()).To(BeEquivalentTo(1000), "the client's state is not changed")
	})
})

var _ = Describe("A shell turn", func() {
	It("is a shell_conversation_turn whose command and output are blobs", func() {
		t := &checkpoint.Turn{RequestID: "req", Shell: &agentv1.ShellConversationTurn{
			ShellCommand: &agentv1.ShellCommand{Command: "ls"}, ShellOutput: &agentv1.ShellOutput{Stdout: "go.mod\n"}}}
		st, blobs := checkpoint.Settled(checkpoint.Projection{Turn: t})
		var ts agentv1.ConversationTurnStructure
		Expect(proto.Unmarshal(blobs[string(st.GetTurns()[0])], &ts)).To(Succeed())
		sh := ts.GetShellConversationTurn()
		Expect(sh).NotTo(BeNil())
		var out agentv1.ShellOutput
		Expect(proto.Unmarshal(blobs[string(sh.GetShellOutput())], &out)).To(Succeed())
		Expect(out.GetStdout()).To(Equal("go.mod\n"))
	})
})
