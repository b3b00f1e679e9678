package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// createPlanTool proposes a plan for the user to review (plan mode).
var createPlanTool = &tool{
	name:  "CreatePlan",
	modes: []string{modePlan},
	runs:  withUser,
	open:  func() handler { return new(createPlan) },
}

// createPlan handles one CreatePlan call; it keeps nothing between steps (the card holds
// what a later step reads).
type createPlan struct{}

func (*createPlan) start(c *call) (Action, error) {
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
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_CreatePlanRequestQuery{
		CreatePlanRequestQuery: &agentv1.CreatePlanRequestQuery{Args: args, ToolCallId: c.id}}}}, nil
}

func (*createPlan) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	p := r.GetCreatePlanRequestResponse()
	if p == nil {
		return fail("unexpected interaction response")
	}
	c.card.GetCreatePlanToolCall().Result = p.GetResult()
	if p.GetResult().GetSuccess() == nil {
		return fail("the plan was not accepted: " + p.GetResult().GetError().GetError())
	}
	return finish("The user received the plan.", false)
}
