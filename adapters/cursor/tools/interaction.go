package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// startAsk asks the user multiple-choice questions through an interaction
// query; the answers become the tool result.
func (c *Call) startAsk() (Action, error) {
	raw, ok := c.args["questions"].([]any)
	if !ok || len(raw) == 0 {
		return Action{}, fmt.Errorf("%s: missing required argument %q", c.call.Name, "questions")
	}
	args := &agentv1.AskQuestionArgs{Title: c.str("title")}
	for _, q := range raw {
		qm, _ := q.(map[string]any)
		question := &agentv1.AskQuestionArgs_Question{Id: str(qm, "id"), Prompt: str(qm, "prompt")}
		question.AllowMultiple, _ = qm["allow_multiple"].(bool)
		opts, _ := qm["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			question.Options = append(question.Options, &agentv1.AskQuestionArgs_Option{Id: str(om, "id"), Label: str(om, "label")})
		}
		args.Questions = append(args.Questions, question)
	}
	c.card.Tool = &agentv1.ToolCall_AskQuestionToolCall{AskQuestionToolCall: &agentv1.AskQuestionToolCall{Args: args}}
	c.state = stepQuery
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_AskQuestionInteractionQuery{
		AskQuestionInteractionQuery: &agentv1.AskQuestionInteractionQuery{Args: args, ToolCallId: c.call.CallID}}}}, nil
}

// startPlan proposes a plan for the user to review.
func (c *Call) startPlan() (Action, error) {
	plan, err := c.required("plan")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.CreatePlanArgs{Plan: plan, Overview: c.str("overview"), Name: c.str("name")}
	todos, _ := c.args["todos"].([]any)
	for _, t := range todos {
		tm, _ := t.(map[string]any)
		args.Todos = append(args.Todos, &agentv1.TodoItem{Id: str(tm, "id"), Content: str(tm, "content"),
			Status: agentv1.TodoStatus_TODO_STATUS_PENDING})
	}
	c.card.Tool = &agentv1.ToolCall_CreatePlanToolCall{CreatePlanToolCall: &agentv1.CreatePlanToolCall{Args: args}}
	c.state = stepQuery
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_CreatePlanRequestQuery{
		CreatePlanRequestQuery: &agentv1.CreatePlanRequestQuery{Args: args, ToolCallId: c.call.CallID}}}}, nil
}

// startSwitchMode asks the user to approve a mode switch.
func (c *Call) startSwitchMode() (Action, error) {
	target, err := c.required("target_mode_id")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.SwitchModeArgs{TargetModeId: target, Explanation: optStr(c.str("explanation")), ToolCallId: c.call.CallID}
	c.card.Tool = &agentv1.ToolCall_SwitchModeToolCall{SwitchModeToolCall: &agentv1.SwitchModeToolCall{Args: args}}
	c.state = stepQuery
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_SwitchModeRequestQuery{
		SwitchModeRequestQuery: &agentv1.SwitchModeRequestQuery{Args: args}}}}, nil
}

// OnInteraction feeds the user's answer to the call's query.
func (c *Call) OnInteraction(r *agentv1.InteractionResponse) Action {
	if c.done || c.state != stepQuery {
		return Action{}
	}
	if p := r.GetCreatePlanRequestResponse(); p != nil && c.card.GetCreatePlanToolCall() != nil {
		c.card.GetCreatePlanToolCall().Result = p.GetResult()
		if p.GetResult().GetSuccess() == nil {
			return c.fail("the plan was not accepted: " + p.GetResult().GetError().GetError())
		}
		return c.finish("The user received the plan.", false)
	}
	if m := r.GetSwitchModeRequestResponse(); m != nil && c.card.GetSwitchModeToolCall() != nil {
		tc := c.card.GetSwitchModeToolCall()
		if rej := m.GetRejected(); rej != nil || m.GetApproved() == nil {
			tc.Result = &agentv1.SwitchModeResult{Result: &agentv1.SwitchModeResult_Rejected{Rejected: &agentv1.SwitchModeRejected{Reason: rej.GetReason()}}}
			return c.finish("The user declined the mode switch. "+rej.GetReason(), false)
		}
		to := tc.GetArgs().GetTargetModeId()
		tc.Result = &agentv1.SwitchModeResult{Result: &agentv1.SwitchModeResult_Success{Success: &agentv1.SwitchModeSuccess{ToModeId: to}}}
		return c.finish("Switched to "+to+" mode.", false)
	}
	if w := r.GetWebSearchRequestResponse(); w != nil && c.card.GetWebSearchToolCall() != nil {
		if w.GetApproved() == nil {
			return c.finish("The user declined the web search. "+w.GetRejected().GetReason(), false)
		}
		c.state = stepWeb
		return Action{Web: &Web{Search: c.card.GetWebSearchToolCall().GetArgs().GetSearchTerm()}}
	}
	if w := r.GetWebFetchRequestResponse(); w != nil && c.card.GetFetchToolCall() != nil {
		if w.GetApproved() == nil {
			return c.finish("The user declined fetching the page. "+w.GetRejected().GetReason(), false)
		}
		c.state = stepWeb
		return Action{Web: &Web{Fetch: c.card.GetFetchToolCall().GetArgs().GetUrl()}}
	}
	ask := r.GetAskQuestionInteractionResponse()
	if ask == nil || c.card.GetAskQuestionToolCall() == nil {
		return c.fail("unexpected interaction response")
	}
	c.card.GetAskQuestionToolCall().Result = ask.GetResult()
	s := ask.GetResult().GetSuccess()
	if s == nil {
		return c.fail(describe("ask question", ask.GetResult()))
	}
	var b strings.Builder
	for _, a := range s.GetAnswers() {
		fmt.Fprintf(&b, "%s: %s", a.GetQuestionId(), strings.Join(a.GetSelectedOptionIds(), ", "))
		if a.GetFreeformText() != "" {
			b.WriteString(" (" + a.GetFreeformText() + ")")
		}
		b.WriteString("\n")
	}
	return c.finish(b.String(), false)
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
