package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// webFetchTool fetches a page once the user approved; the server fetches
// it, not the client.
var webFetchTool = &tool{
	name:          "WebFetch",
	modes:         userModes,
	web:           true,
	runs:          withUser,
	start:         (*Call).startFetch,
	onInteraction: (*Call).onFetchApproval,
	onWeb:         (*Call).onFetched,
}

func (c *Call) startFetch() (Action, error) {
	url, err := c.required("url")
	if err != nil {
		return Action{}, err
	}
	c.card.Tool = &agentv1.ToolCall_FetchToolCall{FetchToolCall: &agentv1.FetchToolCall{Args: &agentv1.FetchArgs{Url: url, ToolCallId: c.call.CallID}}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebFetchRequestQuery{
		WebFetchRequestQuery: &agentv1.WebFetchRequestQuery{Args: &agentv1.WebFetchArgs{Url: url, ToolCallId: c.call.CallID}}}}}, nil
}

func (c *Call) onFetchApproval(r *agentv1.InteractionResponse) Action {
	w := r.GetWebFetchRequestResponse()
	if w == nil {
		return c.fail("unexpected interaction response")
	}
	if w.GetApproved() == nil {
		return c.finish("The user declined fetching the page. "+w.GetRejected().GetReason(), false)
	}
	return Action{Web: &Web{Fetch: c.card.GetFetchToolCall().GetArgs().GetUrl()}}
}

func (c *Call) onFetched(content string, err error) Action {
	f := c.card.GetFetchToolCall()
	if err != nil {
		f.Result = &agentv1.FetchResult{Result: &agentv1.FetchResult_Error{Error: &agentv1.FetchError{Url: f.GetArgs().GetUrl(), Error: err.Error()}}}
		return c.fail(err.Error())
	}
	f.Result = &agentv1.FetchResult{Result: &agentv1.FetchResult_Success{Success: &agentv1.FetchSuccess{Url: f.GetArgs().GetUrl(), Content: content}}}
	return c.finish(content, false)
}
