package cursortest

import (
	"context"
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// RunSubagent runs a subagent the way the client does for subagent_args:
// a child run on a new request id ("sub-<tool call id>") with the parent
// headers, in its own conversation, with subagent_type_name set. It waits
// for the child's stream to end and returns the subagent result for the
// parent: the child's text as final message, or its error. The child uses
// this client's KV store; onMessage, when set, serves the child's execs.
func (c *Client) RunSubagent(ctx context.Context, args *agentv1.SubagentArgs,
	onMessage func(context.Context, *agentv1.AgentServerMessage, Sender) error) *agentv1.SubagentResult {
	fail := func(err error) *agentv1.SubagentResult {
		return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Error{Error: &agentv1.SubagentError{Error: err.Error()}}}
	}
	child := c.WithRequestID("sub-" + args.GetToolCallId())
	child.OnMessage = onMessage
	child.Header.Set("X-Parent-Request-Id", c.RequestID)
	child.Header.Set("X-Parent-Agent-Tool-Call-Id", args.GetToolCallId())
	conv := "sub-" + args.GetToolCallId()
	kind := args.GetSubagentType()
	if kind == "" {
		kind = "general"
	}
	st, err := child.Subscribe(ctx)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	req := Request(conv, args.GetModelId(), UserMessageAction(conv+":prompt", args.GetPrompt()), nil)
	req.GetRunRequest().SubagentTypeName = &kind
	if err := child.Send(ctx, req); err != nil {
		return fail(err)
	}
	select {
	case <-st.Done():
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	if e := st.EndError(); e != nil {
		return fail(fmt.Errorf("subagent run ended: %w", e))
	}
	text := strings.Join(st.Texts(), "")
	return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{
		AgentId: conv, FinalMessage: &text}}}
}
