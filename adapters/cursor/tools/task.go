package tools

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// taskTool runs a subagent: the client opens a child run and reports its
// final message, or (run_in_background, or the user moved it there) that it
// goes on in the background, to be awaited or reported when done. A
// subagent cannot start further subagents.
var taskTool = &tool{
	name:  "Task",
	modes: []string{modeAgent, modeDebug, modeMultitask, modePlan},
	runs:  onClient,
	open:  func() handler { return new(task) },
}

// task handles one Task call; it keeps nothing between steps (the card holds
// what a later step reads).
type task struct{}

// start asks the client to run a subagent: the client opens a child
// run of its own and reports back with subagent_result. The user's model
// choice for the subagent type wins over the model the model asked for; a
// type the user turned off is refused.
func (*task) start(c *call) (Action, error) {
	prompt, err := c.required("prompt")
	if err != nil {
		return Action{}, err
	}
	kind := c.str("subagent_type")
	model := c.str("model")
	if model == "" {
		model = c.env.ModelID
	}
	if o := override(c, kind); o != nil {
		switch sel := o.GetSelection().(type) {
		case *agentv1.SubagentModelOverride_Disabled:
			if sel.Disabled {
				return Action{}, fmt.Errorf("%s: subagents of type %q are turned off in the user's settings", c.name, kind)
			}
		case *agentv1.SubagentModelOverride_Inherit:
			if sel.Inherit {
				model = c.env.ModelID
			}
		case *agentv1.SubagentModelOverride_Model:
			if id := sel.Model.GetModelId(); id != "" {
				model = id
			}
		}
	}
	root := c.env.RootConversationID
	if root == "" {
		root = c.env.ConversationID
	}
	resume := c.str("resume_agent_id", "resume")
	args := &agentv1.SubagentArgs{ToolCallId: c.id, SubagentType: kind, ModelId: model,
		Prompt: prompt, Readonly: c.flag("readonly"), ParentConversationId: optStr(c.env.ConversationID),
		RootParentConversationId: optStr(root), ResumeAgentId: optStr(resume),
		Environment: agentv1.SubagentExecutionEnvironment_SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL}
	if c.flag("run_in_background") {
		bg := true
		args.RunInBackground = &bg
	}
	c.card.Tool = &agentv1.ToolCall_TaskToolCall{TaskToolCall: &agentv1.TaskToolCall{Args: &agentv1.TaskArgs{
		Description: c.str("description"), Prompt: prompt, Model: optStr(model), SubagentType: SubagentTypeOf(kind),
		Resume: optStr(resume), Environment: args.Environment}}}
	accept := false // a subagent exec takes no hook contexts
	return Action{Exec: &agentv1.ExecServerMessage{ExecId: c.id, AcceptHookAdditionalContexts: &accept,
		Message: &agentv1.ExecServerMessage_SubagentArgs{SubagentArgs: args}}}, nil
}

// override is the user's model choice for subagents of kind, if any; an
// empty kind is the default subagent.
func override(c *call, kind string) *agentv1.SubagentModelOverride {
	for _, o := range c.env.SubagentOverrides {
		t := o.GetSubagentType()
		if t == kind || (kind == "" && (t == "default" || t == "general")) {
			return o
		}
	}
	return nil
}

func (*task) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetSubagentResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetTaskToolCall()
	s := r.GetSuccess()
	if s == nil {
		tc.Result = &agentv1.TaskResult{Result: &agentv1.TaskResult_Error{Error: &agentv1.TaskError{Error: r.GetError().GetError()}}}
		return fail("the subagent failed: " + r.GetError().GetError())
	}
	id := s.GetAgentId()
	success := &agentv1.TaskSuccess{AgentId: &id, TranscriptPath: s.TranscriptPath, BackgroundReason: s.GetBackgroundReason()}
	tc.Result = &agentv1.TaskResult{Result: &agentv1.TaskResult_Success{Success: success}}
	if s.GetBackgroundReason() != agentv1.SubagentBackgroundReason_SUBAGENT_BACKGROUND_REASON_UNSPECIFIED {
		success.IsBackground = true
		return finish(fmt.Sprintf("Subagent ID: %s\n\nThe subagent goes on in the background. You are told when it finishes; "+
			"to wait for it now, call Await with task_id %q.", id, id), false)
	}
	return finish("Subagent ID: "+id+"\n\n"+s.GetFinalMessage(), false)
}

// SubagentTypeOf is the card's subagent type of a subagent_type name: a
// built-in type by its name (explore, bash, shell, debug, ...), else a
// custom one; an empty name is unspecified.
func SubagentTypeOf(name string) *agentv1.SubagentType {
	t := &agentv1.SubagentType{}
	if name == "" {
		t.Type = &agentv1.SubagentType_Unspecified{Unspecified: &agentv1.SubagentTypeUnspecified{}}
		return t
	}
	m := t.ProtoReflect()
	f := m.Descriptor().Oneofs().ByName("type").Fields().ByName(protoreflect.Name(name))
	if f == nil || f.Name() == "custom" || f.Name() == "unspecified" || f.Message() == nil {
		t.Type = &agentv1.SubagentType_Custom{Custom: &agentv1.SubagentTypeCustom{Name: name}}
		return t
	}
	m.Set(f, protoreflect.ValueOfMessage(m.NewField(f).Message()))
	return t
}
