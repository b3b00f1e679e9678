package tools

import (
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// webFetchTool fetches a page once the user approved; the server fetches
// it (ports.WebFetcher), not the client. Its card is the web fetch card
// (web_fetch_tool_call), which carries the same WebFetchArgs as the
// approval query and the page as Markdown.
var webFetchTool = &tool{
	name:  "WebFetch",
	modes: userModes,
	web:   fetchesWeb,
	runs:  withUser,
	open:  func() handler { return new(webFetch) },
}

// webFetch handles one WebFetch call; it keeps nothing between steps (the card holds
// what a later step reads).
type webFetch struct{}

func (*webFetch) start(c *call) (Action, error) {
	url, err := c.required("url")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.WebFetchArgs{Url: url, ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_WebFetchToolCall{WebFetchToolCall: &agentv1.WebFetchToolCall{Args: args}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebFetchRequestQuery{
		WebFetchRequestQuery: &agentv1.WebFetchRequestQuery{Args: args}}}}, nil
}

func (*webFetch) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	w := r.GetWebFetchRequestResponse()
	if w == nil {
		return fail("unexpected interaction response")
	}
	if w.GetApproved() == nil {
		reason := w.GetRejected().GetReason()
		c.card.GetWebFetchToolCall().Result = &agentv1.WebFetchResult{Result: &agentv1.WebFetchResult_Rejected{
			Rejected: &agentv1.WebFetchRejected{Reason: reason}}}
		return finish(strings.TrimSpace("The user declined fetching the page. "+reason), false)
	}
	return Action{Web: &Web{Fetch: c.card.GetWebFetchToolCall().GetArgs().GetUrl()}}
}

func (*webFetch) onWeb(c *call, o WebOutcome) Action {
	card := c.card.GetWebFetchToolCall()
	url := card.GetArgs().GetUrl()
	if o.Err != nil {
		card.Result = &agentv1.WebFetchResult{Result: &agentv1.WebFetchResult_Error{Error: &agentv1.WebFetchError{Url: url, Error: o.Err.Error()}}}
		return fail(o.Err.Error())
	}
	if o.Page.URL != "" {
		url = o.Page.URL
	}
	card.Result = &agentv1.WebFetchResult{Result: &agentv1.WebFetchResult_Success{Success: &agentv1.WebFetchSuccess{Url: url, Markdown: o.Page.Text}}}
	text := o.Page.Text
	if url != card.GetArgs().GetUrl() {
		text = "(Redirected to " + url + ")\n\n" + text
	}
	if strings.TrimSpace(text) == "" {
		text = "The page at " + url + " has no text."
	}
	return finish(text, false)
}
