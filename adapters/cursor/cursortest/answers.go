package cursortest

import agentv1 "keygate/gen/cursor/agent/v1"

// Approve answers an interaction query as a user who agrees to everything:
// the first option of each question, every approval given, a plan
// accepted, a sign-in done. Plug it in as Workspace.Answer.
func Approve(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
	r := &agentv1.InteractionResponse{}
	switch {
	case q.GetAskQuestionInteractionQuery() != nil:
		s := &agentv1.AskQuestionSuccess{}
		for _, qu := range q.GetAskQuestionInteractionQuery().GetArgs().GetQuestions() {
			a := &agentv1.AskQuestionSuccess_Answer{QuestionId: qu.GetId()}
			if len(qu.GetOptions()) > 0 {
				a.SelectedOptionIds = []string{qu.GetOptions()[0].GetId()}
			}
			s.Answers = append(s.Answers, a)
		}
		r.Result = &agentv1.InteractionResponse_AskQuestionInteractionResponse{AskQuestionInteractionResponse: &agentv1.AskQuestionInteractionResponse{
			Result: &agentv1.AskQuestionResult{Result: &agentv1.AskQuestionResult_Success{Success: s}}}}
	case q.GetSwitchModeRequestQuery() != nil:
		r.Result = &agentv1.InteractionResponse_SwitchModeRequestResponse{SwitchModeRequestResponse: &agentv1.SwitchModeRequestResponse{
			Result: &agentv1.SwitchModeRequestResponse_Approved_{Approved: &agentv1.SwitchModeRequestResponse_Approved{}}}}
	case q.GetCreatePlanRequestQuery() != nil:
		r.Result = &agentv1.InteractionResponse_CreatePlanRequestResponse{CreatePlanRequestResponse: &agentv1.CreatePlanRequestResponse{
			Result: &agentv1.CreatePlanResult{Result: &agentv1.CreatePlanResult_Success{Success: &agentv1.CreatePlanSuccess{}}}}}
	case q.GetWebSearchRequestQuery() != nil:
		r.Result = &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
			Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}
	case q.GetWebFetchRequestQuery() != nil:
		r.Result = &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}
	case q.GetMcpAuthRequestQuery() != nil:
		r.Result = &agentv1.InteractionResponse_McpAuthRequestResponse{McpAuthRequestResponse: &agentv1.McpAuthRequestResponse{
			Result: &agentv1.McpAuthRequestResponse_Approved_{Approved: &agentv1.McpAuthRequestResponse_Approved{}}}}
	}
	return r
}
