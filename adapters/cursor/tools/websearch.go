package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// maxSearchResults is how many results a search asks for; a model reads
// the snippets and fetches the pages it needs.
const maxSearchResults = 8

// webSearchTool searches the web once the user approved; the server
// searches (ports.WebSearcher), not the client.
var webSearchTool = &tool{
	name:  "WebSearch",
	modes: userModes,
	web:   searchesWeb,
	runs:  withUser,
	open:  func() handler { return new(webSearch) },
}

// webSearch handles one WebSearch call; it keeps nothing between steps (the card holds
// what a later step reads).
type webSearch struct{}

// SearchLimit is how many results a WebSearch asks the backend for.
func SearchLimit() int { return maxSearchResults }

func (*webSearch) start(c *call) (Action, error) {
	term, err := c.required("search_term", "query")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.WebSearchArgs{SearchTerm: term, ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_WebSearchToolCall{WebSearchToolCall: &agentv1.WebSearchToolCall{Args: args}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_WebSearchRequestQuery{
		WebSearchRequestQuery: &agentv1.WebSearchRequestQuery{Args: args}}}}, nil
}

func (*webSearch) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	w := r.GetWebSearchRequestResponse()
	if w == nil {
		return fail("unexpected interaction response")
	}
	if w.GetApproved() == nil {
		reason := w.GetRejected().GetReason()
		c.card.GetWebSearchToolCall().Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Rejected{
			Rejected: &agentv1.WebSearchRejected{Reason: reason}}}
		return finish(strings.TrimSpace("The user declined the web search. "+reason), false)
	}
	return Action{Web: &Web{Search: c.card.GetWebSearchToolCall().GetArgs().GetSearchTerm()}}
}

// onWeb shows the results on the card as references and gives the
// model a numbered list: title, URL and snippet of each.
func (*webSearch) onWeb(c *call, o WebOutcome) Action {
	card := c.card.GetWebSearchToolCall()
	if o.Err != nil {
		card.Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Error{Error: &agentv1.WebSearchError{Error: o.Err.Error()}}}
		return fail("Web search failed: " + o.Err.Error())
	}
	success := &agentv1.WebSearchSuccess{}
	term := card.GetArgs().GetSearchTerm()
	if len(o.Results) == 0 {
		card.Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Success{Success: success}}
		return finish(fmt.Sprintf("No web results for %q.", term), false)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Web results for %q:\n", term)
	for i, r := range o.Results {
		success.References = append(success.References, &agentv1.WebSearchReference{Title: r.Title, Url: r.URL, Chunk: r.Snippet})
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	card.Result = &agentv1.WebSearchResult{Result: &agentv1.WebSearchResult_Success{Success: success}}
	return finish(b.String(), false)
}
