package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// webSearchTool searches the web once the user approved; the server
// searches, not the client.
var webSearchTool = &tool{
	name:          "WebSearch",
	modes:         userModes,
	web:           true,
	runs:          withUser,
	start:         (*Call).startSearch,
	onInteraction: (*Call).onSearchApproval,
	onWeb:         (*Call).onSearched,
}

func (c *Call) startSearch() (Action, error) {
	term, err := c.required("search_term", "query")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.WebSearchArgs{SearchTerm: term, ToolCallId: c.call.CallID}
	c.card.Tool = &agentv1.ToolCall_WebSearchToolCall{WebSearchToolCall: &agentv1.WebSearchToolCall{Args: args}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebSearchRequestQuery{
		WebSearchRequestQuery: &agentv1.WebSearchRequestQuery{Args: args}}}}, nil
}

func (c *Call) onSearchApproval(r *agentv1.InteractionResponse) Action {
	w := r.GetWebSearchRequestResponse()
	if w == nil {
		return c.fail("unexpected interaction response")
	}
	if w.GetApproved() == nil {
		return c.finish("The user declined the web search. "+w.GetRejected().GetReason(), false)
	}
	return Action{Web: &Web{Search: c.card.GetWebSearchToolCall().GetArgs().GetSearchTerm()}}
}

func (c *Call) onSearched(content string, err error) Action {
	if err != nil {
		return c.fail(err.Error())
	}
	c.card.GetWebSearchToolCall().Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Success{Success: &agentv1.WebSearchSuccess{}}}
	return c.finish(content, false)
}
