package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// switchModeTool asks the user to approve a switch to another mode.
var switchModeTool = &tool{
	name:  "SwitchMode",
	modes: []string{modeAgent, modeMultitask},
	runs:  withUser,
	open:  func() handler { return new(switchMode) },
}

// switchMode handles one SwitchMode call; it keeps nothing between steps (the card holds
// what a later step reads).
type switchMode struct{}

func (*switchMode) start(c *call) (Action, error) {
	target, err := c.required("target_mode_id")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.SwitchModeArgs{TargetModeId: target, Explanation: optStr(c.str("explanation")), ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_SwitchModeToolCall{SwitchModeToolCall: &agentv1.SwitchModeToolCall{Args: args}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_SwitchModeRequestQuery{
		SwitchModeRequestQuery: &agentv1.SwitchModeRequestQuery{Args: args}}}}, nil
}

func (*switchMode) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	m := r.GetSwitchModeRequestResponse()
	if m == nil {
		return fail("unexpected interaction response")
	}
	tc := c.card.GetSwitchModeToolCall()
	if rej := m.GetRejected(); rej != nil || m.GetApproved() == nil {
		tc.Result = &agentv1.SwitchModeResult{Result: &agentv1.SwitchModeResult_Rejected{Rejected: &agentv1.SwitchModeRejected{Reason: rej.GetReason()}}}
		return finish("The user declined the mode switch. "+rej.GetReason(), false)
	}
	to := tc.GetArgs().GetTargetModeId()
	tc.Result = &agentv1.SwitchModeResult{Result: &agentv1.SwitchModeResult_Success{Success: &agentv1.SwitchModeSuccess{ToModeId: to}}}
	return finish("Switched to "+to+" mode.", false)
}
