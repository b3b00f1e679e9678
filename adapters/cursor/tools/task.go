package tools

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// taskTool runs a subagent: the client opens a child run and reports its
// final message. A subagent cannot start further subagents.
var taskTool = &tool{
	name:   "Task",
	modes:  []string{modeAgent, modeDebug, modeMultitask, modePlan},
	runs:   onClient,
	start:  (*Call).startTask,
	onExec: (*Call).onTask,
}

// startTask asks the client to run a subagent: the client opens a child
// run of its own and reports back with subagent_result.
func (c *Call) startTask() (Action, error) {
	prompt, err := c.required("prompt")
	if err != nil {
		return Action{}, err
	}
	model := c.str("model")
	if model == "" {
		model = c.env.ModelID
	}
	root := c.env.RootConversationID
	if root == "" {
		root = c.env.ConversationID
	}
	args := &agentv1.SubagentArgs{ToolCallId: c.call.CallID, SubagentType: c.str("subagent_type"), ModelId: model,
		Prompt: prompt, Readonly: c.flag("readonly"), ParentConversationId: optStr(c.env.ConversationID),
		RootParentConversationId: optStr(root)}
	c.card.Tool = &agentv1.ToolCall_TaskToolCall{TaskToolCall: &agentv1.TaskToolCall{Args: &agentv1.TaskArgs{
		Description: c.str("description"), Prompt: prompt, Model: optStr(model)}}}
	accept := false // a subagent exec takes no hook contexts
	return Action{Exec: &agentv1.ExecServerMessage{ExecId: c.call.CallID, AcceptHookAdditionalContexts: &accept,
		Message: &agentv1.ExecServerMessage_SubagentArgs{SubagentArgs: args}}}, nil
}

func (c *Call) onTask(m *agentv1.ExecClientMessage) Action {
	r := m.GetSubagentResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.fail("unexpected exec result for a subagent")
	}
	tc := c.card.GetTaskToolCall()
	s := r.GetSuccess()
	if s == nil {
		tc.Result = &agentv1.TaskResult{Result: &agentv1.TaskResult_Error{Error: &agentv1.TaskError{Error: r.GetError().GetError()}}}
		return c.fail("the subagent failed: " + r.GetError().GetError())
	}
	id := s.GetAgentId()
	tc.Result = &agentv1.TaskResult{Result: &agentv1.TaskResult_Success{Success: &agentv1.TaskSuccess{AgentId: &id,
		TranscriptPath: s.TranscriptPath}}}
	return c.finish("Subagent ID: "+id+"\n\n"+s.GetFinalMessage(), false)
}
