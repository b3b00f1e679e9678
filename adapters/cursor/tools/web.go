package tools

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// startSearch asks the user to approve a web search.
func (c *Call) startSearch() (Action, error) {
	term, err := c.required("search_term", "query")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.WebSearchArgs{SearchTerm: term, ToolCallId: c.call.CallID}
	c.card.Tool = &agentv1.ToolCall_WebSearchToolCall{WebSearchToolCall: &agentv1.WebSearchToolCall{Args: args}}
	c.state = stepQuery
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebSearchRequestQuery{
		WebSearchRequestQuery: &agentv1.WebSearchRequestQuery{Args: args}}}}, nil
}

// startFetch asks the user to approve fetching a page.
func (c *Call) startFetch() (Action, error) {
	url, err := c.required("url")
	if err != nil {
		return Action{}, err
	}
	c.card.Tool = &agentv1.ToolCall_FetchToolCall{FetchToolCall: &agentv1.FetchToolCall{Args: &agentv1.FetchArgs{Url: url, ToolCallId: c.call.CallID}}}
	c.state = stepQuery
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebFetchRequestQuery{
		WebFetchRequestQuery: &agentv1.WebFetchRequestQuery{Args: &agentv1.WebFetchArgs{Url: url, ToolCallId: c.call.CallID}}}}}, nil
}

// OnWeb completes an approved search or fetch with what the server got.
func (c *Call) OnWeb(content string, err error) Action {
	if c.done || c.state != stepWeb {
		return Action{}
	}
	if err != nil {
		if f := c.card.GetFetchToolCall(); f != nil {
			f.Result = &agentv1.FetchResult{Result: &agentv1.FetchResult_Error{Error: &agentv1.FetchError{Url: f.GetArgs().GetUrl(), Error: err.Error()}}}
		}
		return c.fail(err.Error())
	}
	if f := c.card.GetFetchToolCall(); f != nil {
		f.Result = &agentv1.FetchResult{Result: &agentv1.FetchResult_Success{Success: &agentv1.FetchSuccess{Url: f.GetArgs().GetUrl(), Content: content}}}
	}
	if s := c.card.GetWebSearchToolCall(); s != nil {
		s.Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Success{Success: &agentv1.WebSearchSuccess{}}}
	}
	return c.finish(content, false)
}
